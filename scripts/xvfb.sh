# The one way the scripts start a virtual X server; sourced by scripts/test-session.sh and
# scripts/screenshots (the tests use the one scripts/test starts):
#
#     start_xvfb WIDTHxHEIGHT LOG    sets xvfb_pid and xvfb_display (":N"); status 1 when
#                                    Xvfb did not start (what it said is in LOG)
#     stop_xvfb                      stops the server start_xvfb started, if any
#
# Xvfb picks a free display number itself (-displayfd) and writes it once it accepts
# connections, so two runs never race for a number and no one waits a fixed time.
xvfb_pid=""
xvfb_display=""

start_xvfb() {
    local size=$1 log=$2 number_file fd
    number_file=$(mktemp "${TMPDIR:-/tmp}/xvfb-display.XXXXXX") || return 1
    exec {fd}>"$number_file"
    Xvfb -displayfd "$fd" -screen 0 "${size}x24" -nolisten tcp >"$log" 2>&1 &
    xvfb_pid=$!
    exec {fd}>&-
    # Up to 10 s for the number, unless Xvfb ends first.
    for _ in $(seq 100); do
        [ -s "$number_file" ] && break
        kill -0 "$xvfb_pid" 2>/dev/null || break
        sleep 0.1
    done
    if [ -s "$number_file" ]; then
        xvfb_display=":$(tr -d '[:space:]' <"$number_file")"
    fi
    rm -f "$number_file"
    [ -n "$xvfb_display" ]
}

stop_xvfb() {
    if [ -n "$xvfb_pid" ]; then
        kill "$xvfb_pid" 2>/dev/null || true
        wait "$xvfb_pid" 2>/dev/null || true
    fi
    xvfb_pid="" xvfb_display=""
}
