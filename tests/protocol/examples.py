"""Every request and response shape of designs 000-003, filled with the designs' own example
values (the "Add user authentication" walk-through)."""

from __future__ import annotations

from typing import Any

RESEARCH_SUMMARY = (
    "JWT auth exists at src/lib/auth.ts with bearer token pattern. Can extend for "
    "new route. No conflicts."
)

VALID: dict[str, tuple[str, dict[str, Any]]] = {
    # design 001 / 000 / 003: the generic request and response
    "001 request": (
        "request",
        {
            "task_id": "code-research-1",
            "phase": "research",
            "context": {
                "feature": "Add user authentication",
                "spec_path": "specs/user-auth/requirements.md",
                "relevant_files": ["src/lib/auth.ts"],
                "constraints": ["TDD"],
                "previous_findings": None,
            },
            "instructions": "Find existing implementations and identify conflicts",
            "expected_output": "structured_findings",
        },
    ),
    "001 response": (
        "response",
        {
            "task_id": "code-research-1",
            "phase": "research",
            "status": "complete",
            "decision": "PROCEED",
            "findings": {"existing_implementations": ["src/lib/auth.ts"]},
            "context_summary": RESEARCH_SUMMARY,
            "tokens_used": 15000,
            "issues": [],
        },
    ),
    # design 001 templates
    "001 researcher output": (
        "researcher",
        {
            "decision": "PROCEED",
            "findings": {
                "existing_implementations": [
                    {"file": "src/lib/auth.ts", "description": "JWT utils"}
                ],
                "conflicts": [],
                "patterns_found": ["bearer tokens"],
                "recommendations": ["extend auth.ts"],
            },
            "context_summary": RESEARCH_SUMMARY,
        },
    ),
    "001 writer output": (
        "writer",
        {
            "status": "complete",
            "files_changed": [
                "src/routes/auth.ts",
                "src/middleware/verify-token.ts",
                "tests/auth.test.ts",
            ],
            "tests_written": ["tests/auth.test.ts"],
            "context_summary": "Added /auth/login route with JWT middleware. Tests passing.",
        },
    ),
    "001 validator output": (
        "validator",
        {
            "decision": "PROCEED",
            "checks": {
                "types": {"passed": True, "errors": []},
                "lint": {"passed": True, "errors": []},
                "tests": {"passed": True, "coverage": 95},
                "security": {"passed": True, "issues": []},
            },
            "context_summary": "All checks passed",
        },
    ),
    "001 STOP": (
        "response",
        {
            "task_id": "code-research-1",
            "phase": "research",
            "status": "blocked",
            "decision": "STOP",
            "reason": "Critical conflict found",
            "context_summary": "loginUser already exists in src/lib/auth.ts",
        },
    ),
    "001 CLARIFY": (
        "response",
        {
            "task_id": "code-research-1",
            "phase": "research",
            "status": "partial",
            "decision": "CLARIFY",
            "questions": ["Which auth provider?"],
            "context_summary": "Two auth providers are configured.",
        },
    ),
    # design 000 consolidated templates
    "000 domain-researcher": (
        "researcher",
        {
            "decision": "PROCEED",
            "findings": {
                "existing_implementations": ["src/lib/auth.ts"],
                "conflicts": [],
                "consolidation_opportunities": [],
            },
            "context_summary": RESEARCH_SUMMARY,
        },
    ),
    "000 domain-writer": (
        "writer",
        {
            "status": "complete",
            "files_changed": [
                "src/routes/auth.ts",
                "src/middleware/verify-token.ts",
                "tests/auth.test.ts",
            ],
            "tests_added": ["tests/auth.test.ts"],
            "context_summary": "Added /auth/login route with JWT middleware. Tests passing.",
        },
    ),
    "000 domain-writer data flow": (
        "writer",
        {
            "files_changed": [
                "src/routes/auth.ts",
                "src/middleware/verify-token.ts",
                "tests/auth.test.ts",
            ],
            "context_summary": "Added /auth/login route with JWT middleware. Tests passing.",
        },
    ),
    "000 quality-validator": (
        "validator",
        {
            "status": "PASS",
            "checks": {"typecheck": "pass", "lint": "pass", "tests": "pass", "build": "pass"},
            "errors": [],
        },
    ),
    "000 quality-checker": (
        "checker",
        {
            "check_type": "type",
            "status": "pass",
            "output": "tsc --noEmit: 0 errors",
            "duration_ms": 1234,
        },
    ),
    "000 spec-analyzer": (
        "spec-analyzer",
        {
            "mode": "analyze",
            "findings": {"missing": ["error cases for login"]},
            "recommendations": ["add REQ for lockout"],
            "context_summary": "Spec covers login and logout; lockout is unspecified.",
        },
    ),
    "000 git-content-generator": (
        "git-content",
        {
            "content_type": "commit",
            "title": "feat(auth): add user authentication",
            "body": "Adds /auth/login with JWT middleware.",
            "metadata": {"files": 3},
        },
    ),
    "000 code-analyzer": (
        "code-analyzer",
        {
            "mode": "debug",
            "analysis": {"cause": "token not returned"},
            "recommendations": ["return the token from loginUser"],
            "context_summary": "loginUser drops the token it creates.",
        },
    ),
    # design 002 code-agent shapes
    "002 researcher input": (
        "request",
        {
            "task_id": "code-research-1",
            "phase": "research",
            "context": {
                "feature": "add-user-authentication",
                "spec_path": "specs/user-auth/requirements.md",
                "hints": ["src/lib"],
                "constraints": ["TDD"],
            },
            "instructions": "Find existing implementations and identify conflicts",
        },
    ),
    "002 researcher output": (
        "response",
        {
            "task_id": "code-research-1",
            "phase": "research",
            "status": "complete",
            "decision": "PROCEED",
            "findings": {
                "existing_implementations": [
                    {
                        "file": "src/lib/auth.ts",
                        "description": "JWT utils",
                        "relevant_functions": ["validateToken", "refreshToken"],
                    }
                ],
                "conflicts": [],
                "patterns_found": ["httpOnly cookies"],
                "recommendations": ["extend with loginUser, logoutUser"],
            },
            "context_summary": (
                "JWT auth exists in src/lib/auth.ts with validateToken, "
                "refreshToken. Recommend extending with loginUser, logoutUser "
                "functions. Use httpOnly cookies."
            ),
            "tokens_used": 15000,
        },
    ),
    "002 writer input": (
        "request",
        {
            "task_id": "code-write-1",
            "phase": "write",
            "context": {
                "feature": "add-user-authentication",
                "spec_path": "specs/user-auth/requirements.md",
                "research_summary": "JWT auth exists in src/lib/auth.ts...",
                "retry_context": None,
            },
            "instructions": "Implement the feature using TDD",
        },
    ),
    "002 writer retry input": (
        "request",
        {
            "task_id": "code-write-1",
            "phase": "write",
            "context": {
                "feature": "add-user-authentication",
                "research_summary": "JWT auth exists in src/lib/auth.ts...",
                "retry_context": {"failures": ["loginUser should return token"], "attempt": 2},
            },
            "instructions": "Implement the feature using TDD",
        },
    ),
    "002 writer output": (
        "writer",
        {
            "task_id": "code-write-1",
            "phase": "write",
            "status": "complete",
            "files_changed": [
                {"path": "src/lib/auth.ts", "action": "modified"},
                {"path": "src/lib/auth.test.ts", "action": "created"},
            ],
            "tests_written": [{"path": "src/lib/auth.test.ts", "count": 5}],
            "context_summary": (
                "Added loginUser, logoutUser to auth.ts. Tests cover success and "
                "error cases. 95% coverage."
            ),
            "notes": "Uses httpOnly cookies",
        },
    ),
    "002 qa input": (
        "request",
        {
            "task_id": "code-qa-1",
            "phase": "validate",
            "context": {
                "files_changed": ["src/lib/auth.ts", "src/lib/auth.test.ts"],
                "implementation_summary": "Added loginUser, logoutUser...",
                "expected_behavior": "users can log in and out",
            },
            "instructions": "Run all quality checks on changed files",
        },
    ),
    "002 qa output": (
        "validator",
        {
            "task_id": "code-qa-1",
            "phase": "validate",
            "status": "complete",
            "decision": "PROCEED",
            "checks": {
                "types": {"passed": True, "errors": []},
                "lint": {"passed": True, "errors": []},
                "tests": {"passed": True, "coverage": 85, "failed": []},
                "security": {"passed": True, "issues": []},
            },
            "summary": "All checks passed",
            "tokens_used": 8000,
        },
    ),
    "002 qa STOP": (
        "validator",
        {
            "decision": "STOP",
            "checks": {"tests": {"passed": False, "failed": ["loginUser should return token"]}},
        },
    ),
    "002 research STOP": (
        "researcher",
        {
            "decision": "STOP",
            "findings": {
                "conflicts": [{"type": "naming", "description": "loginUser already exists"}]
            },
            "issues": ["loginUser already exists in src/lib/auth.ts"],
            "context_summary": "Conflict: loginUser already exists in src/lib/auth.ts.",
        },
    ),
    "002 research CLARIFY": (
        "researcher",
        {
            "decision": "CLARIFY",
            "questions": ["Should auth use session cookies or JWT tokens?"],
            "findings": {},
            "context_summary": "Both session and JWT helpers exist.",
        },
    ),
}
