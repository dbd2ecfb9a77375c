#!/bin/bash
# Runs INSIDE the bare Debian root (bare_system_test.sh chroots into it with an
# empty environment). Everything it needs lies under /t (a tmpfs):
#
#   in_bare_root.sh bundle BUNDLE_DIR SAMPLE   the bundle, moved to a new path
#   in_bare_root.sh wheel WHEEL SAMPLE          the wheel in a fresh venv
#
# bundle: every ELF file resolves all its libraries (else one line per missing
#   library, naming it and who needs it); `tbprof convert` of a real trace and
#   `tbprof inspect` of the result succeed; the collector, loaded with no
#   libcupti on the system, says so in one stderr line and returns 1 (the job
#   runs on).
# wheel: `pip install --no-index` into a fresh venv; the installed `tbprof`
#   console command converts and inspects; tbprof.collector_path() exists; and,
#   when /t/torch-site holds a torch (the host's pinned CPU build, bind-mounted
#   read-only), tbprof.tensorboard_trace_handler under a real torch.profiler
#   writes <worker>.xplane.pb that `tbprof inspect` reads.
# Prints "ok: ..." per check; the first failure prints "FAIL: ..." and exits 1.
set -uo pipefail
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }
mode=$1 what=$2 sample=$3
work=/t/work-$mode
rm -rf "$work" && mkdir -p "$work"

check_bundle() {
  local b=$1
  local missing=0
  for elf in "$b"/bin/* "$b"/lib/*.so*; do
    # ldd names each library the loader cannot find: "libX.so.N => not found".
    while read -r lib; do
      echo "FAIL: the bundle lacks $lib (needed by ${elf#"$b"/})"
      missing=1
    done < <(ldd "$elf" 2>&1 | awk '/not found/ {print $1}')
  done
  [ $missing -eq 0 ] || exit 1
  ok "every library of bin/ and lib/ resolves inside the bare root"
  local out
  out=$("$b/bin/tbprof" convert "$sample" --logdir "$work/tb" --run bare --quiet 2>&1) \
    || fail "bundle tbprof convert: $out"
  compgen -G "$work/tb/plugins/profile/bare/*.xplane.pb" > /dev/null \
    || fail "bundle tbprof convert wrote no xplane.pb under $work/tb/plugins/profile/bare"
  out=$("$b/bin/tbprof" inspect "$work/tb/plugins/profile/bare" 2>&1) \
    || fail "bundle tbprof inspect: $out"
  ok "bundle: convert + inspect of $(basename "$sample")"
  # No libcupti here: one line, InitializeInjection returns 1, no capture.
  local err
  err=$(TBPROF_LOGDIR="$work/tbc" python3 -c '
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
print(lib.InitializeInjection())' "$b/lib/libtbprof_cupti.so" 2> "$work/inj.err") \
    || fail "a process loading the collector without libcupti died: $(cat "$work/inj.err")"
  [ "$err" = "1" ] || fail "InitializeInjection returned '$err', not 1"
  [ "$(wc -l < "$work/inj.err")" -eq 1 ] && grep -q 'libcupti' "$work/inj.err" \
    || fail "the collector without libcupti should say so in one line; it said: $(cat "$work/inj.err")"
  ok "collector without libcupti: '$(cut -c1-80 "$work/inj.err")...' and the process runs on"
}

check_wheel() {
  local whl=$1 out
  python3 -m venv "$work/venv" || fail "python3 -m venv failed"
  out=$("$work/venv/bin/pip" install --no-index --no-deps --disable-pip-version-check -q "$whl" 2>&1) \
    || fail "pip install $(basename "$whl"): $out"
  ok "pip install $(basename "$whl") into a fresh venv (no index)"
  out=$("$work/venv/bin/tbprof" convert "$sample" --logdir "$work/tb" --run wheel --quiet 2>&1) \
    || fail "wheel tbprof convert: $out"
  out=$("$work/venv/bin/tbprof" inspect "$work/tb/plugins/profile/wheel" 2>&1) \
    || fail "wheel tbprof inspect: $out"
  ok "wheel: tbprof convert + inspect"
  out=$("$work/venv/bin/python" -c 'import os, tbprof; p = tbprof.collector_path(); assert os.path.isfile(p), p; print(p)' 2>&1) \
    || fail "tbprof.collector_path(): $out"
  ok "tbprof.collector_path() = $out"
  if [ ! -d /t/torch-site/torch ]; then
    echo "skipped: torch handler (no host torch mounted at /t/torch-site)"
    return
  fi
  local site
  site=$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  echo /t/torch-site > "$site/zz-host-torch.pth"  # After the venv's own packages.
  out=$(cd "$work" && "$work/venv/bin/python" - "$work/tbt" 2>&1 <<'EOF'
import sys
import torch
import tbprof
assert tbprof.__file__.startswith(sys.prefix), tbprof.__file__  # The wheel's, not a source tree's.
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
handler = tbprof.tensorboard_trace_handler(sys.argv[1], worker_name='bare', run='handler')
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                            schedule=torch.profiler.schedule(wait=1, warmup=1, active=2),
                            on_trace_ready=handler) as prof:
  for _ in range(5):
    opt.zero_grad()
    model(torch.randn(16, 32)).square().mean().backward()
    opt.step()
    prof.step()
print('torch', torch.__version__, 'wrote', ' '.join(handler.written))
EOF
) || fail "torch handler: $out"
  [ -f "$work/tbt/plugins/profile/handler/bare.xplane.pb" ] \
    || fail "torch handler wrote no $work/tbt/plugins/profile/handler/bare.xplane.pb: $out"
  local inspect
  inspect=$("$work/venv/bin/tbprof" inspect "$work/tbt/plugins/profile/handler" 2>&1) \
    || fail "tbprof inspect of the handler's run: $inspect"
  ok "torch handler: $(echo "$out" | tail -n1)"
}

case "$mode" in
  bundle) check_bundle "$what" ;;
  wheel) check_wheel "$what" ;;
  *) fail "unknown mode '$mode'" ;;
esac
