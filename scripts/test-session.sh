# Part of scripts/test: runs inside `dbus-run-session` with the throw-away directories
# already exported. Starts gnome-keyring (Secret Service, unlocked) and Xvfb, runs the gates
# of scripts/check given in SKILL_CATALOG_TEST_GATES (or, with --check GATE..., those alone),
# runs pytest, stops both. Not meant to be called directly.
set -uo pipefail
if { true >&4; } 2>/dev/null; then exec 2>&4 4>&-; fi

scratch=${SKILL_CATALOG_TEST_SCRATCH:?run scripts/test, not this file}
venv=${SKILL_CATALOG_VENV:?run scripts/test, not this file}
keyring_pid=""
# shellcheck source=scripts/xvfb.sh
source "$(dirname "${BASH_SOURCE[0]}")/xvfb.sh"

say() { printf 'scripts/test: %s\n' "$*" >&2; }

stop_services() {
    stop_xvfb
    keyring_pid=$(keyring_owner 2>/dev/null || true)
    if [ -n "$keyring_pid" ]; then
        kill "$keyring_pid" 2>/dev/null
        for _ in $(seq 50); do kill -0 "$keyring_pid" 2>/dev/null || break; sleep 0.1; done
    fi
    keyring_pid=""
}
trap stop_services EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

bus_call() {
    dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus \
        /org/freedesktop/DBus "org.freedesktop.DBus.$1" "string:$2" 2>/dev/null
}

# The pid of the process providing the Secret Service now, or nothing.
keyring_owner() {
    case $(bus_call NameHasOwner org.freedesktop.secrets) in
        *true*) bus_call GetConnectionUnixProcessID org.freedesktop.secrets | awk '{ print $2 }' ;;
    esac
}

# The Secret Service: a new login keyring under the throw-away XDG_DATA_HOME, unlocked with
# the run's random password (tests that lock the keyring unlock it again with it). The
# session bus starts gnome-keyring (scripts/test-keyring.sh) when asked for it, here first.
SKILL_CATALOG_TEST_KEYRING_PASSWORD=$(cat "$scratch/keyring-password")
export SKILL_CATALOG_TEST_KEYRING_PASSWORD
dbus-send --session --print-reply=literal --reply-timeout=30000 --dest=org.freedesktop.DBus \
    /org/freedesktop/DBus org.freedesktop.DBus.StartServiceByName \
    string:org.freedesktop.secrets uint32:0 >/dev/null 2>"$scratch/keyring-start.log"
keyring_pid=$(keyring_owner)
if [ -z "$keyring_pid" ]; then
    cat "$scratch/keyring-start.log" "$scratch/keyring.log" >&2 2>/dev/null
    say "gnome-keyring-daemon did not provide the Secret Service on the test D-Bus session"
    exit 1
fi

# A virtual X server on the first free display number, for the tests marked `xvfb`.
if ! start_xvfb 1280x800 "$scratch/xvfb.log"; then
    cat "$scratch/xvfb.log" >&2
    say "Xvfb did not start"
    exit 1
fi
export SKILL_CATALOG_TEST_DISPLAY=$xvfb_display
export SKILL_CATALOG_TEST_SESSION=1

say "Secret Service: gnome-keyring (pid $keyring_pid); Xvfb on $SKILL_CATALOG_TEST_DISPLAY"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ "${1:-}" = "--check" ]; then
    shift
    "$root/scripts/check" "$@"
    exit $?
fi
gates_rc=0
if [ -n "${SKILL_CATALOG_TEST_GATES:-}" ]; then
    # shellcheck disable=SC2086 # a list of gate names
    "$root/scripts/check" $SKILL_CATALOG_TEST_GATES || gates_rc=1
    unset SKILL_CATALOG_TEST_GATES
fi
if [ "$#" -eq 0 ]; then
    # The whole suite: spread over worker processes, each with a session bus and a
    # keyring of its own (tests/conftest.py); SKILL_CATALOG_TEST_WORKERS sets how many.
    workers=${SKILL_CATALOG_TEST_WORKERS:-3}
    say "running the whole suite on $workers worker processes"
    set -- -n "$workers" --durations=15
fi
"$venv/bin/python" -m pytest "$@"
rc=$?
for log in "$scratch"/worker-*/keyring.log; do
    [ -f "$log" ] || continue
    # A worker's gnome-keyring ends with the worker's bus at the end of its tests; it
    # ended during the run when the bus had to start it again.
    if [ "$(grep -c '^scripts/test-keyring: gnome-keyring started ' "$log")" -gt 1 ]; then
        say "a test worker's gnome-keyring ended during the run; its log:"
        cat "$log" >&2
    fi
done
# gnome-keyring ending during the run is its own fault or a test's, never silent: the tests
# that needed it then may have failed, and what it said explains why.
if grep -q '^scripts/test-keyring: .* ended ' "$scratch/keyring.log" 2>/dev/null; then
    say "gnome-keyring ended during the run (started again by the session bus when asked); its log:"
    cat "$scratch/keyring.log" >&2
fi
stop_services

if [ "$rc" -eq 5 ]; then
    say "pytest collected no tests: that is a failure (check the paths and -k/-m options)"
    exit 1
fi
if [ "$gates_rc" -ne 0 ] && [ "$rc" -eq 0 ]; then
    say "the tests passed, but a gate of scripts/check failed (see above)"
    exit 1
fi
exit "$rc"
