export const meta = {
  name: "fanout",
  description: "One fan-out of an agents-state workflow: its agents in parallel",
  whenToUse: "Only as the exact call `agents-state next` prints.",
}

// ARGS, version 1 (docs/plugin.md, "Native fan-outs"):
//   {v: 1, workflow, phase, fanout, schema?: "handoff",
//    agents: [{key, label, agentType, model, prompt, schema?}]}
// `schema: "handoff"` gives every agent without a schema of its own the handoff schema below.
// The result holds each agent's key and a one-line outcome: the SubagentStop hook has recorded
// each whole answer already (issue 34).
// The host passes `args` verbatim: an object when the call gave an object, a string when it gave
// text (the /subagents:fanout command does), so both are accepted.
// The handoff response as the StructuredOutput tool's input schema (agents_state.engine.fanout's
// HANDOFF_SCHEMA; tests/test_fanout_briefs.py holds the two equal).
const HANDOFF = {"type": "object", "additionalProperties": false, "properties": {"task_id": {"type": "string", "minLength": 1}, "phase": {"type": "string", "enum": ["research", "write", "validate", "build", "type", "lint", "test", "security"]}, "tokens_used": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]}, "issues": {"type": "array", "items": {"type": "string"}}, "questions": {"type": "array", "items": {"type": "string"}}, "reason": {"anyOf": [{"type": "string"}, {"type": "null"}]}, "status": {"type": "string", "enum": ["complete", "partial", "blocked"]}, "decision": {"type": "string", "enum": ["PROCEED", "STOP", "CLARIFY"]}, "findings": {"type": "object", "additionalProperties": true}, "context_summary": {"type": "string"}, "checks": {"anyOf": [{"type": "object", "additionalProperties": true}, {"type": "null"}]}, "files_changed": {"type": "array", "items": {}}, "summary": {"anyOf": [{"type": "string"}, {"type": "null"}]}, "notes": {"anyOf": [{"type": "string"}, {"type": "null"}]}}, "required": ["task_id", "phase", "status", "decision", "context_summary"]}

function fail(what) {
  throw new Error("subagents:fanout: " + what + " (pass the call `agents-state next` prints)")
}

function readArgs(raw) {
  let input = raw
  if (typeof raw === "string") {
    try {
      input = JSON.parse(raw)
    } catch (e) {
      fail("args is text that is not JSON")
    }
  }
  if (input === null || typeof input !== "object" || Array.isArray(input)) fail("args must be an object")
  if (input.v !== 1) fail("args.v must be 1, got " + JSON.stringify(input.v))
  for (const field of ["workflow", "phase", "fanout"]) {
    if (typeof input[field] !== "string" || input[field] === "") fail("args." + field + " must be a non-empty string")
  }
  if (input.schema !== undefined && input.schema !== null && input.schema !== "handoff") fail("args.schema must be \"handoff\"")
  if (!Array.isArray(input.agents) || input.agents.length === 0) fail("args.agents must be a non-empty list")
  const keys = new Set()
  input.agents.forEach((a, i) => {
    const where = "args.agents[" + i + "]"
    if (a === null || typeof a !== "object" || Array.isArray(a)) fail(where + " must be an object")
    for (const field of ["key", "prompt"]) {
      if (typeof a[field] !== "string" || a[field] === "") fail(where + "." + field + " must be a non-empty string")
    }
    for (const field of ["label", "agentType", "model"]) {
      if (a[field] !== undefined && a[field] !== null && typeof a[field] !== "string") fail(where + "." + field + " must be a string")
    }
    if (a.schema !== undefined && a.schema !== null && (typeof a.schema !== "object" || Array.isArray(a.schema))) {
      fail(where + ".schema must be a JSON schema object")
    }
    if (keys.has(a.key)) fail(where + ".key " + JSON.stringify(a.key) + " is used twice")
    keys.add(a.key)
  })
  return input
}

function options(a, phaseName, shared) {
  const opts = { label: a.label || a.key, phase: phaseName }
  if (a.agentType) opts.agentType = a.agentType
  if (a.model) opts.model = a.model
  if (a.schema) opts.schema = a.schema
  else if (shared) opts.schema = shared
  return opts
}

function outcome(answer) {
  if (answer === undefined || answer === null) return null
  let line
  if (typeof answer === "object") {
    const head = [answer.status, answer.decision].filter((x) => typeof x === "string").join(" ")
    const said = typeof answer.context_summary === "string" ? answer.context_summary : ""
    line = head && said ? head + ": " + said : head || said || "answered"
  } else {
    line = String(answer)
  }
  line = line.split("\n")[0]
  return line.length > 160 ? line.slice(0, 157) + "..." : line
}

const input = readArgs(args)
const phaseName = "phase " + input.phase
log("fan-out " + input.fanout + " of workflow " + input.workflow + ": " + input.agents.length + " agent(s)")
const shared = input.schema === "handoff" ? HANDOFF : null
const answers = await parallel(input.agents.map((a) => () => agent(a.prompt, options(a, phaseName, shared))))
return {
  v: 1,
  fanout: input.fanout,
  results: input.agents.map((a, i) => ({ key: a.key, outcome: outcome(answers[i]) })),
}
