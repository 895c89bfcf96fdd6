# Sourced by the scripts that drive a window: `start_xvfb :N` starts Xvfb on that display
# unless one is already set (E2E_DISPLAY forces a new one) and waits until it accepts
# connections, since an app started before that dies; `stop_xvfb` stops it again.

xvfb_pid=""

start_xvfb() {
  local display="$1"
  if [ -n "${DISPLAY:-}" ] && [ -z "${E2E_DISPLAY:-}" ]; then
    return 0
  fi
  Xvfb "$display" -screen 0 1400x900x24 -nolisten tcp >/dev/null 2>&1 &
  xvfb_pid=$!
  export DISPLAY="$display"
  for _ in $(seq 1 100); do
    [ -S "/tmp/.X11-unix/X${display#:}" ] && return 0
    kill -0 "$xvfb_pid" 2>/dev/null || { echo "Xvfb $display did not start" >&2; return 1; }
    sleep 0.1
  done
}

stop_xvfb() {
  if [ -n "$xvfb_pid" ]; then
    kill -TERM "$xvfb_pid" 2>/dev/null || true
    wait "$xvfb_pid" 2>/dev/null || true
  fi
}
