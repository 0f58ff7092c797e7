# Part of scripts/test: the Secret Service of the test session. The session bus runs this
# when a client asks for org.freedesktop.secrets and nobody provides it: at the start of the
# run, and again if gnome-keyring ended during it (a desktop's service manager restarts it
# the same way). gnome-keyring stays in the foreground, so what it says (its warnings, an
# assertion it aborts on) and how it ended go to the run's keyring log, which test-session.sh
# shows when gnome-keyring ended during the run. Not meant to be called directly.
set -u
scratch=${SKILL_CATALOG_TEST_SCRATCH:?run scripts/test, not this file}
log=$scratch/keyring.log

printf 'scripts/test-keyring: gnome-keyring started at %s\n' "$(date +%T.%3N)" >>"$log"
gnome-keyring-daemon --foreground --unlock --components=secrets \
    <"$scratch/keyring-password" >>"$log" 2>&1 &
daemon=$!
# Stopping this script stops gnome-keyring with it.
trap 'kill "$daemon" 2>/dev/null' TERM INT HUP
wait "$daemon"
status=$?
if [ "$status" -gt 128 ]; then
    how="killed by signal $((status - 128)) ($(kill -l "$((status - 128))" 2>/dev/null || echo '?'))"
else
    how="exit status $status"
fi
printf 'scripts/test-keyring: gnome-keyring (pid %s) ended at %s: %s\n' \
    "$daemon" "$(date +%T.%3N)" "$how" >>"$log"
