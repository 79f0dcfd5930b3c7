# Shared by the tests/e2e_ui*.sh scripts (sourced after lib_e2e.sh): the
# program in a tmux pane, driven with send-keys and read with capture-pane.

# A server per start (a killed server may still be going away when the next starts).
nstart=0
sock="wafertop-e2e-$$-0"
T() { tmux -L "$sock" -f /dev/null "$@"; }
trap 'T kill-server 2>/dev/null; rm -rf "$tmp"' EXIT

cap() { T capture-pane -p -t ui 2>/dev/null; }

# The pane without what the test typed: the command line and the output
# pane's echo of every command start with ':' (after the pane's margin), so
# text the test typed cannot answer for what the program showed.
shown() { cap | grep -v '^ *:'; }

# wait_for PATTERN WHAT: until the pane shows PATTERN (a fixed string) outside
# the command line and the echoes of commands, at most wait_s seconds (30; the
# wafer's evaluations take seconds, and tens under the sanitizers)
wait_s=30
wait_for() {
    i=0
    while [ $i -lt $((wait_s * 10)) ]; do
        shown | grep -qF -- "$1" && return 0
        sleep 0.1
        i=$((i + 1))
    done
    fail "$2: the screen never showed '$1'"
    cap | sed 's/^/    | /'
    return 1
}

# wait_last REGEX WHAT: until the pane's last line (the status or command
# line) matches REGEX, at most 30 s
wait_last() {
    i=0
    while [ $i -lt 300 ]; do
        cap | tail -n 1 | grep -qx -- "$1" && return 0
        sleep 0.1
        i=$((i + 1))
    done
    fail "$2: the last line is '$(cap | tail -n 1)', not /$1/"
    return 1
}

# wait_gone PATTERN WHAT
wait_gone() {
    i=0
    while [ $i -lt 300 ]; do
        cap | grep -qF -- "$1" || return 0
        sleep 0.1
        i=$((i + 1))
    done
    fail "$2: '$1' stayed on the screen"
    return 1
}

# wait_exit WHAT: until the program has ended; its status is then in $tmp/rc
wait_exit() {
    i=0
    while [ $i -lt $((wait_s * 10)) ]; do
        [ -s "$tmp/rc" ] && return 0
        sleep 0.1
        i=$((i + 1))
    done
    fail "$1: the program did not exit"
    return 1
}

# start ARGS...: the program (ARGS after its name) in a fresh 120x40 pane; the terminal's settings
# before and after go to $tmp/before and $tmp/after, the status to $tmp/rc.
start() {
    T kill-server 2>/dev/null
    nstart=$((nstart + 1))
    sock="wafertop-e2e-$$-$nstart"
    rm -f "$tmp/rc" "$tmp/before" "$tmp/after"
    T new-session -d -s ui -x 120 -y 40 \
        "stty -g >'$tmp/before'; env LANG=C.UTF-8 TERM=tmux-256color '$bin' $* 2>'$tmp/stderr'; \
         echo \$? >'$tmp/rc.new'; stty -g >'$tmp/after'; mv '$tmp/rc.new' '$tmp/rc'; sleep 600"
}

keys() { T send-keys -t ui "$@"; }

restored() {
    cmp -s "$tmp/before" "$tmp/after" || fail "$1: the terminal settings were not restored"
    cap | grep -qF "figures" && fail "$1: the screen is still shown after exit"
}
