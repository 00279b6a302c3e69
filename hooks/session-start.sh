#!/bin/sh
# SessionStart hook of the `subagents` plugin: make sure the agents-state engine exists, then let
# the engine put the workflow back in the context (`agents-state hook session-start`).
#
# Claude Code does not install a plugin's Python dependencies, and CLAUDE_PLUGIN_DATA (where an
# engine could live across plugin updates) is set for hooks only, not in commands' `!` blocks or
# the Bash tool.  So, at the start of every session:
#   1. An `agents-state` elsewhere on PATH (pipx, pip --user, a project venv) wins: nothing to do.
#   2. Else the engine is a venv under ${CLAUDE_PLUGIN_DATA}/venvs/<fingerprint>, built from this
#      plugin's own source (its dependencies from the package index pip is configured for) when
#      missing or stale (the fingerprint covers pyproject.toml and every agents_state/*.py, so a
#      plugin update rebuilds it); ${CLAUDE_PLUGIN_DATA}/bin/agents-state links to it, and a line
#      `export PATH=...` in $CLAUDE_ENV_FILE puts that bin/ (the engine alone, not the venv's
#      python) on the PATH of commands and the Bash tool for this session.
# While it runs the host shows hooks.json's statusMessage (building, and how long it usually
# takes); progress goes to stderr and ${CLAUDE_PLUGIN_DATA}/install.log; the outcome is one line
# for the user and the model (systemMessage and additionalContext): built in how many seconds,
# or why not and a command that installs the engine from this plugin's source (it is not on
# PyPI).  Always exits 0: a session must start.
set -u

# PATH's absolute entries only, for everything this script runs: an empty entry, `.` or `bin`
# would name whatever folder the session starts in (a cloned repository), and neither the engine
# nor the Python that builds it is ever taken from there.
absolute_path=
old_ifs=$IFS
IFS=:
for dir in $PATH; do
    case $dir in
        /*) absolute_path=${absolute_path:+$absolute_path:}$dir ;;
    esac
done
IFS=$old_ifs
PATH=${absolute_path:-/usr/bin:/bin}  # an empty PATH would mean the working directory
export PATH

self=$(readlink -f -- "$0" 2>/dev/null || printf '%s' "$0")
root=$(CDPATH='' cd -- "$(dirname -- "$self")/.." 2>/dev/null && pwd -P) || exit 0
launcher=$root/bin/agents-state
data=${CLAUDE_PLUGIN_DATA-}
payload=$(cat) || payload='{}'

say() { printf 'agents-state: %s\n' "$*" >&2; }

json_line() {  # the string $1 as a JSON string
    printf '%s' "$1" | tr -d '\000-\037\177' | sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$/"/'
}

tell() {  # one line for the user (shown) and the model (context)
    line=$(json_line "$1")
    printf '{"systemMessage": %s, "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": %s}}\n' \
        "$line" "$line"
}

# CLAUDE_PLUGIN_DATA is where a venv is built and a program linked that later hooks run: a plain
# absolute path (no '.' or '..', no control character, which would also break pip's script
# headers and this hook's one-line JSON), and if it exists a real folder of this user, not a
# symbolic link to somewhere else.  Prints why not.
data_problem() {
    case $data in
        *[[:cntrl:]]*) echo "CLAUDE_PLUGIN_DATA has a control character in it"; return ;;
        /*) ;;
        *) echo "CLAUDE_PLUGIN_DATA must be an absolute path, not '$data'"; return ;;
    esac
    case $data/ in
        */./*|*/../*) echo "CLAUDE_PLUGIN_DATA must not have '.' or '..' in it: '$data'"; return ;;
    esac
    if [ -L "$data" ]; then
        echo "CLAUDE_PLUGIN_DATA '$data' is a symbolic link"
    elif [ -e "$data" ] && [ ! -d "$data" ]; then
        echo "CLAUDE_PLUGIN_DATA '$data' is not a folder"
    elif [ -e "$data" ] && [ ! -O "$data" ]; then
        echo "CLAUDE_PLUGIN_DATA '$data' belongs to another user"
    fi
}

engine_on_path() {
    old_ifs=$IFS
    IFS=:
    for dir in $PATH; do
        IFS=$old_ifs
        candidate=$dir/agents-state
        [ -f "$candidate" ] && [ -x "$candidate" ] || continue
        [ -n "$data" ] && [ "$dir" = "$data/bin" ] && continue
        head -c 300 -- "$candidate" 2>/dev/null | grep -q 'agents-state launcher for the' \
            && continue
        return 0
    done
    IFS=$old_ifs
    return 1
}

fingerprint() {
    {
        cat "$root/pyproject.toml"
        find "$root/agents_state" -type f \( -name '*.py' -o -name '*.json' -o -name py.typed \) \
            | LC_ALL=C sort | while IFS= read -r f; do printf '%s\n' "${f#"$root"/}"; cat "$f"; done
    } 2>/dev/null | cksum | tr ' ' '-'
}

find_python() {
    for py in python3.13 python3.12 python3.11 python3; do
        command -v "$py" >/dev/null 2>&1 || continue
        "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && {
            command -v "$py"
            return 0
        }
    done
    return 1
}

# pip's console script imports `re` (about 5 ms, a third of what a hook costs above Python's own
# start) only to strip a Windows suffix (.exe, -script.pyw) from sys.argv[0], which the program
# the plugin runs never has: the engine is that script without those two lines.  Only pip's
# script for this package, exactly, is changed (its first lines, which run the venv's Python,
# stay as pip wrote them); any other shape is left as it is.
lean_script() {
    re_line="    sys.argv[0] = re.sub(r'(-script\.pyw|\.exe)?\$', '', sys.argv[0])"
    for entry in program main; do  # pyproject.toml's [project.scripts]
        grep -Fqx "from agents_state.__main__ import $entry" "$1" 2>/dev/null && break
    done
    lean_tail="# -*- coding: utf-8 -*-
import sys
from agents_state.__main__ import $entry
if __name__ == '__main__':
    sys.exit($entry())"
    [ "$(grep -Fxc -e 'import re' -e "$re_line" "$1" 2>/dev/null)" = 2 ] || return 0
    grep -Fvx -e 'import re' -e "$re_line" "$1" >"$1.lean" 2>/dev/null \
        && [ "$(tail -n 5 "$1.lean")" = "$lean_tail" ] \
        && [ "$(grep -c '' "$1")" = "$(($(grep -c '' "$1.lean") + 2))" ] \
        && chmod 755 "$1.lean" && mv -f "$1.lean" "$1"
    rm -f "$1.lean"
}

# Build venvs/$fp from a copy of the source (pip must not write build/ or *.egg-info into the
# plugin folder, which may be read-only); prints the reason on failure.
build() {
    fp=$1
    log=$data/install.log
    py=$(find_python) || { echo "no Python 3.11 or newer found on PATH"; return 1; }
    src=$data/src.$$
    venv=$data/venvs/$fp
    rm -rf "$src" "$venv"
    mkdir -p "$src" "$data/venvs" || { echo "cannot write to $data"; return 1; }
    cp -R "$root/agents_state" "$root/pyproject.toml" "$src/" 2>>"$log" \
        || { echo "cannot copy the plugin source"; return 1; }
    cp "$root/README.md" "$src/" 2>/dev/null || : >"$src/README.md"
    cp "$root/LICENSE" "$src/" 2>/dev/null || :
    say "building the engine in $venv (first session after install or update; usually 15-40 s; log: $log)"
    {
        echo "== $(date -u '+%Y-%m-%dT%H:%M:%SZ') $py -m venv $venv"
        "$py" -m venv "$venv"
    } >>"$log" 2>&1 || { rm -rf "$src" "$venv"; echo "$py -m venv failed"; return 1; }
    {
        echo "== pip install (from $root)"
        # by a relative name from inside $data: pip reads a path as a requirement, and a ';' in
        # it would start an environment marker
        cd "$data" && "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
            "./${src##*/}"
    } >>"$log" 2>&1 || { rm -rf "$src" "$venv"; echo "pip install failed, see $log"; return 1; }
    rm -rf "$src"
    lean_script "$venv/bin/agents-state"
    "$venv/bin/agents-state" --version >>"$log" 2>&1 \
        || { rm -rf "$venv"; echo "the installed engine does not start"; return 1; }
    return 0
}

# Serialise sessions that start at the same moment: one builds, the others wait for it.  The lock
# is a folder holding `owner`: the pid, host and start identity (boot id and start time, so a
# reused pid is not taken for the owner) of the shell that holds it.  A lock whose owner is dead
# is taken over at once; a live owner's (or one that cannot be judged: another host, no owner
# written) is waited for at most $AGENTS_STATE_INSTALL_WAIT seconds (default 90, at most 300:
# well below the host's 600 s SessionStart timeout), then this session gives up with one line.
this_host=$(uname -n 2>/dev/null) || this_host=unknown

identity() {  # how process $1 is known while it lives (boot id and start time); nothing if dead
    if [ -r /proc/sys/kernel/random/boot_id ]; then
        stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
        # fields after the command name, which is in brackets and may hold spaces
        set -f
        # shellcheck disable=SC2086
        set -- ${stat##*) }
        set +f
        [ "$#" -ge 20 ] && printf '%s %s\n' "$(cat /proc/sys/kernel/random/boot_id)" "${20}"
    else
        ps -o lstart= -p "$1" 2>/dev/null
    fi
}

owner_fields() {  # the lock's owner as three lines: pid, host, identity (nothing if none yet)
    cat "$lock/owner" 2>/dev/null
}

# "dead", "alive" or "unknown" for the owner written in $1 (owner_fields's output)
owner_state() {
    [ -n "$1" ] || {
        # no owner: an older version's lock, or a holder killed between mkdir and writing it
        if [ -n "$(find "$lock" -maxdepth 0 -mmin +15 2>/dev/null)" ]; then echo dead; else echo unknown; fi
        return
    }
    o_pid=$(printf '%s\n' "$1" | sed -n 1p)
    o_host=$(printf '%s\n' "$1" | sed -n 2p)
    o_ident=$(printf '%s\n' "$1" | sed -n 3p)
    case $o_pid in ''|*[!0-9]*) echo unknown; return ;; esac
    [ "$o_host" = "$this_host" ] || { echo unknown; return; }
    if [ -n "$o_ident" ]; then
        now=$(identity "$o_pid")
        if [ -n "$now" ] && [ "$now" = "$o_ident" ]; then echo alive; else echo dead; fi
    elif kill -0 "$o_pid" 2>/dev/null; then
        echo alive
    else
        echo dead
    fi
}

locked() {
    lock=$data/install.lock
    wait_max=${AGENTS_STATE_INSTALL_WAIT:-90}
    case $wait_max in ''|*[!0-9]*) wait_max=90 ;; esac
    [ "$wait_max" -le 300 ] || wait_max=300
    me=$(exec sh -c 'echo "$PPID"')  # this subshell, not the script's $$
    mine=$(printf '%s\n%s\n%s' "$me" "$this_host" "$(identity "$me")")
    waited=0
    until mkdir "$lock" 2>/dev/null; do
        if [ ! -e "$lock" ] && [ ! -L "$lock" ]; then
            echo "cannot write to $data"
            return 1
        fi
        seen=$(owner_fields)
        state=$(owner_state "$seen")
        if [ "$state" = dead ]; then
            # one session takes over: the one whose claim folder inside this very lock is made
            if mkdir "$lock/takeover" 2>/dev/null; then
                if [ "$(owner_fields)" = "$seen" ]; then
                    rm -rf "$lock"
                else
                    rmdir "$lock/takeover" 2>/dev/null
                fi
                continue
            fi
        fi
        if [ "$waited" -ge "$wait_max" ]; then
            o_pid=$(printf '%s\n' "$seen" | sed -n 1p)
            o_host=$(printf '%s\n' "$seen" | sed -n 2p)
            if [ "$state" = alive ]; then
                echo "another session (pid $o_pid) is still installing the engine; it is ready in the next session"
            elif [ -n "$o_pid" ]; then
                echo "$lock is held by pid $o_pid on $o_host; remove it if no install runs there"
            else
                echo "another session's install holds $lock (remove it if no install is running)"
            fi
            return 1
        fi
        sleep 1
        waited=$((waited + 1))
    done
    printf '%s\n' "$mine" >"$lock/owner.tmp" && mv -f "$lock/owner.tmp" "$lock/owner" \
        || { rm -rf "$lock"; echo "cannot write to $data"; return 1; }
    trap 'release; exit 1' HUP INT TERM
    "$@"
    status=$?
    release
    trap - HUP INT TERM
    return "$status"
}

release() {  # remove the lock if it is still this session's
    [ "$(owner_fields)" = "$mine" ] && rm -rf "$lock"
}

ensure() {
    fp=$(fingerprint)
    engine=$data/venvs/$fp/bin/agents-state
    if ! { [ -x "$engine" ] && "$engine" --version >/dev/null 2>&1; }; then
        reason=$(build "$fp") || { echo "$reason"; return 1; }
    fi
    mkdir -p "$data/bin" && ln -sfn "$engine" "$data/bin/agents-state.new" \
        && mv -f "$data/bin/agents-state.new" "$data/bin/agents-state" \
        || { echo "cannot link $data/bin/agents-state"; return 1; }
    for old in "$data"/venvs/*; do  # what earlier plugin versions built
        [ "$old" = "$data/venvs/$fp" ] || rm -rf "$old"
    done
    return 0
}

installed=0
problem=
before=
if ! engine_on_path; then
    if [ -z "$data" ]; then
        problem="CLAUDE_PLUGIN_DATA is not set, so the engine cannot be installed for the plugin"
    elif problem=$(data_problem) && [ -n "$problem" ]; then
        :
    elif ! mkdir -p "$data" 2>/dev/null; then
        problem="cannot create $data"
    else
        before=$(readlink "$data/bin/agents-state" 2>/dev/null)
        started=$(date +%s)
        problem=$(locked ensure) && problem=
        took=$(($(date +%s) - started))
        if [ -z "$problem" ]; then
            [ "$(readlink "$data/bin/agents-state")" = "$before" ] || installed=1
            if [ -n "${CLAUDE_ENV_FILE-}" ]; then
                quoted=$(printf '%s' "$data/bin" | sed "s/'/'\\\\''/g")
                printf "export PATH='%s':\"\$PATH\"\n" "$quoted" >>"$CLAUDE_ENV_FILE"
            fi
        fi
    fi
fi

if [ -n "$problem" ]; then
    # agents-state is not on PyPI: the commands install this plugin's own source
    q=$(printf '%s' "$root" | sed "s/'/'\\\\''/g")
    tell "agents-state: the engine is not installed ($problem); install it with: pipx install '$q' (or, in a Python 3.11+ venv: pip install '$q'), then start a new session"
    exit 0
fi

out=$(printf '%s\n' "$payload" | "$launcher" hook session-start 2>/dev/null)
if [ -n "$out" ]; then
    printf '%s\n' "$out"
elif [ "$installed" = 1 ]; then
    tell "agents-state: engine built in ${took:-0} s and installed in $data (the subagents plugin's /subagents:dispatch is ready)"
fi
exit 0
