# Shared set-up steps for scripts/run, scripts/test and the benchmarks. Each step checks first
# and installs only what is missing, saying what it installs, so running it again does nothing.
# Source it from bash with the repository root as the working directory.

say() { printf '[setup] %s\n' "$*" >&2; }

# Runs a command as root: directly when we are root, else through sudo.
as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else say "need root to run: $*"; return 1
    fi
}

apt_updated=0
# ensure_apt PACKAGE COMMAND: installs a Debian package unless COMMAND (a path or a name on PATH) exists.
ensure_apt() {
    local pkg=$1 cmd=$2
    if command -v "$cmd" >/dev/null 2>&1 || [ -x "$cmd" ]; then return 0; fi
    say "installing Debian package $pkg (for $cmd)"
    if [ "$apt_updated" = 0 ]; then as_root apt-get update -qq; apt_updated=1; fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null
}

# ensure_rust: cargo and the rustfmt/clippy components.
ensure_rust() {
    if ! command -v cargo >/dev/null 2>&1; then
        say "cargo not found: installing Debian's cargo (rustup is the better choice where it can be reached)"
        ensure_apt cargo cargo
    fi
    if command -v rustup >/dev/null 2>&1; then
        for c in rustfmt clippy; do
            rustup component list --installed 2>/dev/null | grep -q "^$c" || { say "installing rust component $c"; rustup component add "$c"; }
        done
    fi
}

# ensure_venv: the project's Python environment in .venv (test oracles live there).
ensure_venv() {
    if [ ! -x .venv/bin/python ]; then
        say "creating Python virtual environment .venv"
        python3 -m venv .venv || { ensure_apt python3-venv /usr/lib/python3/dist-packages/venv; python3 -m venv .venv; }
    fi
    export QIZERO_PYTHON="$PWD/.venv/bin/python"
}

# ensure_pip DISTRIBUTION VERSION: installs that exact version into .venv unless it is there.
# Oracle versions are pinned: the tests' expectations (and one speed patch to pydraughts) are
# tied to them.
ensure_pip() {
    local dist=$1 version=$2 have
    have=$(.venv/bin/python -c "import importlib.metadata as m; print(m.version('$dist'))" 2>/dev/null || true)
    if [ "$have" = "$version" ]; then return 0; fi
    say "installing Python package $dist==$version into .venv${have:+ (replacing $have)}"
    .venv/bin/python -m pip install -q --disable-pip-version-check "$dist==$version"
}

# ensure_oracles: everything the test suite compares against.
ensure_oracles() {
    ensure_venv
    ensure_pip pyffish 0.0.90
    ensure_pip pydraughts 0.6.7
    ensure_pip cchess 1.25.5
    ensure_pip dame-rs 0.2.0
    ensure_apt fairy-stockfish /usr/games/fairy-stockfish
}

# ensure_browser: headless Chromium, its WebDriver and a CJK font (the xiangqi pieces' characters)
# for the browser test of `qizero serve`, and the Selenium client in .venv. The test hands Selenium
# /usr/bin/chromedriver itself, so Selenium Manager never reaches for the network.
ensure_browser() {
    ensure_venv
    ensure_apt chromium /usr/bin/chromium
    ensure_apt chromium-driver /usr/bin/chromedriver
    # ensure_apt tests for an executable; a font file is not one, so test for it here.
    local font=/usr/share/fonts/truetype/wqy/wqy-microhei.ttc
    [ -e "$font" ] || ensure_apt fonts-wqy-microhei "$font"
    ensure_pip selenium 4.51.0
}

# ensure_slurm: Slurm's controller, node daemon and client, and munge, for the test of
# `qizero slurm` on a single-node cluster (scripts/slurm-local starts and stops it; nothing is
# started here, and Debian's packages start nothing without systemd).
ensure_slurm() {
    ensure_apt munge /usr/sbin/munged
    ensure_apt slurmctld /usr/sbin/slurmctld
    ensure_apt slurmd /usr/sbin/slurmd
    ensure_apt slurm-client /usr/bin/sbatch
}

# ensure_torch: libtorch 2.13.0 from the PyPI torch wheel (the exact version tch 0.26 is built
# against), linked as .venv/torch so .cargo/config.toml finds it at build time (LIBTORCH) and the
# binaries at run time (an rpath relative to target/). The wheel brings ~3 GB of CUDA libraries;
# the same install drives CUDA on a GPU machine.
ensure_torch() {
    ensure_venv
    ensure_pip torch 2.13.0
    local dir
    dir=$(.venv/bin/python -c "import os, importlib.util as u; print(os.path.dirname(u.find_spec('torch').origin))")
    if [ "$(readlink .venv/torch 2>/dev/null)" != "$dir" ]; then
        say "linking .venv/torch -> $dir"
        ln -sfn "$dir" .venv/torch
    fi
}
