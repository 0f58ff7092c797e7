# Set up Skill Catalog on this machine: system libraries, a virtual environment, the package.
#
# Source it from bash (scripts/run and scripts/test do):
#
#     source scripts/setup.sh [--test]
#
# or run it: `bash scripts/setup.sh [--test]`.
#
#   --test   also the packages the test suite needs (Xvfb, D-Bus, gnome-keyring,
#            desktop-file-utils, appstream, binutils) and the project's `test` extra.
#
# Idempotent and fast when nothing changed: Debian packages are checked with dpkg-query
# and installed only when missing (as root, with apt-get); the virtual environment `.venv`
# is created once, and `pip install -e .` runs again only when pyproject.toml changed.
# Returns (or exits with) 2 when a system package is missing and cannot be installed here.
#
# Environment: PYTHON (default python3, must be 3.11+), SKILL_CATALOG_VENV (default .venv).
# On success it exports SKILL_CATALOG_ROOT and SKILL_CATALOG_VENV (absolute paths).

# Qt's runtime libraries, including those its xcb and wayland platform plugins load, and a font.
# "a|b" means either name satisfies the need (Debian 13 / Ubuntu 24.04 renamed some to *t64).
_SC_RUNTIME_PKGS=(
    libgl1 libegl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3
    "libglib2.0-0|libglib2.0-0t64"
    libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 libxcb-image0 libxcb-render-util0
    libxcb-xinerama0 libxcb-xkb1 libxcb-randr0 libxcb-shape0 libxcb-xfixes0 libx11-xcb1
    libwayland-cursor0
    fonts-dejavu-core
)
# What the tests need on top: a virtual X server, a D-Bus session with the Secret Service,
# the freedesktop validators, and objdump for PyInstaller.
_SC_TEST_PKGS=(
    xvfb xauth dbus gnome-keyring desktop-file-utils appstream binutils
)

_sc_log() { printf 'setup: %s\n' "$*" >&2; }

# Print the alternatives of each need that is not installed, one need per line.
_sc_missing_pkgs() {
    local need alt installed
    installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' 2>/dev/null \
        | awk '$2 == "ii" { sub(/:.*/, "", $1); print $1 }')
    for need in "$@"; do
        local ok=""
        IFS='|' read -r -a alts <<<"$need"
        for alt in "${alts[@]}"; do
            if grep -qxF -- "$alt" <<<"$installed"; then ok=1; break; fi
        done
        [ -n "$ok" ] || printf '%s\n' "$need"
    done
}

# For "a|b", the first name apt can install (after apt-get update); else the first name.
_sc_pick_candidate() {
    local need=$1 alt cand
    IFS='|' read -r -a alts <<<"$need"
    for alt in "${alts[@]}"; do
        cand=$(apt-cache policy "$alt" 2>/dev/null | awk '/Candidate:/ { print $2 }')
        if [ -n "$cand" ] && [ "$cand" != "(none)" ]; then printf '%s\n' "$alt"; return; fi
    done
    printf '%s\n' "${alts[0]}"
}

_sc_system_packages() {
    local with_test=$1 needs=("${_SC_RUNTIME_PKGS[@]}")
    [ "$with_test" = 1 ] && needs+=("${_SC_TEST_PKGS[@]}")
    if ! command -v dpkg-query >/dev/null 2>&1; then
        _sc_log "not a Debian/Ubuntu system (no dpkg-query): not checking system packages."
        _sc_log "Qt needs libGL, libEGL, libxkbcommon(-x11), fontconfig, libdbus, glib, xcb-cursor;"
        _sc_log "the tests also need Xvfb, dbus-run-session, gnome-keyring, desktop-file-validate,"
        _sc_log "appstreamcli and objdump."
        return 0
    fi
    local missing
    mapfile -t missing < <(_sc_missing_pkgs "${needs[@]}")
    [ "${#missing[@]}" -eq 0 ] && return 0

    local names=() need
    for need in "${missing[@]}"; do names+=("${need%%|*}"); done
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        _sc_log "missing Debian packages: ${names[*]}"
        _sc_log "install them with:"
        printf '\n    sudo apt-get install -y --no-install-recommends %s\n\n' "${names[*]}" >&2
        return 2
    fi
    _sc_log "installing Debian packages: ${names[*]}"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get update -qq >&2; then
        _sc_log "apt-get update failed"
        return 2
    fi
    names=()
    for need in "${missing[@]}"; do names+=("$(_sc_pick_candidate "$need")"); done
    if ! apt-get install -y -qq -o Dpkg::Use-Pty=0 --no-install-recommends "${names[@]}" >&2; then
        _sc_log "apt-get install failed for: ${names[*]}"
        return 2
    fi
}

_sc_python() {
    local py=${PYTHON:-python3}
    if ! command -v "$py" >/dev/null 2>&1; then
        _sc_log "no '$py' found: install Python 3.11 or newer (or set PYTHON=/path/to/python3.11+)"
        return 2
    fi
    if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        _sc_log "$("$py" --version 2>&1) is too old: Skill Catalog needs Python 3.11 or newer"
        _sc_log "(set PYTHON=/path/to/python3.11+)"
        return 2
    fi
    if ! "$py" -c 'import venv, ensurepip' 2>/dev/null; then
        local ver
        ver=$("$py" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
        _sc_log "'$py' cannot create virtual environments (no venv/ensurepip)."
        _sc_log "On Debian/Ubuntu: apt-get install -y python${ver}-venv"
        return 2
    fi
    printf '%s\n' "$py"
}

# Whether the stamp in the venv says pyproject.toml (as it is now) is installed with $1.
_sc_installed() {
    local extras=$1 want have=""
    want="$(sha256sum "$SKILL_CATALOG_ROOT/pyproject.toml" | cut -d' ' -f1)"
    [ -f "$SKILL_CATALOG_VENV/.skill-catalog-installed" ] \
        && have=$(cat "$SKILL_CATALOG_VENV/.skill-catalog-installed")
    # The stamp holds "<hash of pyproject.toml> <extras>"; a test install also serves `run`.
    [ "$have" = "$want $extras" ] || { [ -z "$extras" ] && [ "$have" = "$want [test]" ]; }
}

_sc_venv_locked() {
    local py=$1 extras=$2 venv=$SKILL_CATALOG_VENV
    if [ ! -x "$venv/bin/python" ]; then
        _sc_log "creating the virtual environment $venv"
        "$py" -m venv "$venv" || { _sc_log "could not create $venv"; return 1; }
        # A current pip resolves faster; an old one still works, so a failure here is no error.
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip \
            >/dev/null 2>&1 || true
    fi
    _sc_installed "$extras" && return 0
    local want log="$venv/pip-install.log"
    want="$(sha256sum "$SKILL_CATALOG_ROOT/pyproject.toml" | cut -d' ' -f1)"
    _sc_log "installing Skill Catalog${extras} into $venv (pip; a few minutes the first time)"
    if ! "$venv/bin/python" -m pip install --disable-pip-version-check \
            -e "$SKILL_CATALOG_ROOT$extras" >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        _sc_log "pip install failed (the whole output is in $log)"
        return 1
    fi
    printf '%s %s\n' "$want" "$extras" >"$venv/.skill-catalog-installed"
}

_sc_venv() {
    local with_test=$1 py extras="" rc=0 lock fd
    [ "$with_test" = 1 ] && extras="[test]"
    py=$(_sc_python) || return $?
    if [ -x "$SKILL_CATALOG_VENV/bin/python" ] && _sc_installed "$extras"; then
        return 0
    fi
    # Two set-ups at once (say, two test runs) must not both create or install into the venv.
    lock="${TMPDIR:-/tmp}/skill-catalog-setup-$(printf %s "$SKILL_CATALOG_VENV" | sha256sum \
        | cut -c1-16).lock"
    if command -v flock >/dev/null 2>&1 && exec {fd}>>"$lock"; then
        flock "$fd"
        _sc_venv_locked "$py" "$extras" || rc=$?
        exec {fd}>&-
        return "$rc"
    fi
    _sc_venv_locked "$py" "$extras"
}

skill_catalog_setup() {
    local with_test=0 arg
    for arg in "$@"; do
        case $arg in
            --test) with_test=1 ;;
            *) _sc_log "unknown option: $arg"; return 2 ;;
        esac
    done
    SKILL_CATALOG_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd) || return 1
    export SKILL_CATALOG_ROOT
    SKILL_CATALOG_VENV=${SKILL_CATALOG_VENV:-$SKILL_CATALOG_ROOT/.venv}
    case $SKILL_CATALOG_VENV in /*) ;; *) SKILL_CATALOG_VENV=$SKILL_CATALOG_ROOT/$SKILL_CATALOG_VENV ;; esac
    export SKILL_CATALOG_VENV
    _sc_system_packages "$with_test" || return $?
    _sc_venv "$with_test" || return $?
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    skill_catalog_setup "$@"
    exit $?
fi
skill_catalog_setup "$@"
