export const meta = {
  name: "fanout",
  description: "One fan-out of an agents-state workflow: its agents in parallel",
  whenToUse: "Only as the exact call `agents-state next` prints.",
}

// ARGS, version 1 (docs/plugin.md, "Native fan-outs"):
//   {v: 1, workflow, phase, fanout, agents: [{key, label, agentType, model, prompt, schema?}]}
// The host passes `args` verbatim: an object when the call gave an object, a string when it gave
// text (the /subagents:fanout command does), so both are accepted.
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

function options(a, phaseName) {
  const opts = { label: a.label || a.key, phase: phaseName }
  if (a.agentType) opts.agentType = a.agentType
  if (a.model) opts.model = a.model
  if (a.schema) opts.schema = a.schema
  return opts
}

const input = readArgs(args)
const phaseName = "phase " + input.phase
log("fan-out " + input.fanout + " of workflow " + input.workflow + ": " + input.agents.length + " agent(s)")
const answers = await parallel(input.agents.map((a) => () => agent(a.prompt, options(a, phaseName))))
return {
  v: 1,
  fanout: input.fanout,
  results: input.agents.map((a, i) => ({ key: a.key, answer: answers[i] === undefined ? null : answers[i] })),
}
