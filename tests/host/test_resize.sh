#!/usr/bin/env bash
# pipestat --resize: a live pipe held by another process is resized, and
# that process sees the new size with F_GETPIPE_SZ; each case it must
# refuse says why in one line. No BPF: plain system calls.
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_resize.sh: needs root (other users' processes)"; exit 1
fi
AS_NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# resize ARGS...: pipestat --resize ..., stderr in $MSG, status in $RC
resize() { MSG=$("$@" 2>&1 >/dev/null); RC=$?; }

t_grow_and_shrink() {
	start_hold -- 0
	resize "$PIPESTAT" --resize "$HOLD_PID:$HOLD_R=1M"
	expect "grow by PID:FD: exit status" "$RC" 0
	expect "grow by PID:FD: log line" "$MSG" "pipestat: resized pipe $HOLD_INO (pid $HOLD_PID fd $HOLD_R, pidfd_getfd): 65536 -> 1048576 bytes (16 -> 256 slots), confirmed by F_GETPIPE_SZ"
	expect "grow by PID:FD: the holder sees" "$(hold_size)" 1048576
	resize "$PIPESTAT" --resize "$HOLD_INO=128k"
	expect "shrink by inode: exit status" "$RC" 0
	expect "shrink by inode: sizes" "$(grep -o '1048576 -> .*slots)' <<<"$MSG")" "1048576 -> 131072 bytes (256 -> 32 slots)"
	expect "shrink by inode: the holder sees" "$(hold_size)" 131072
	# the kernel rounds up to a power of two pages
	resize "$PIPESTAT" --resize "pipe:[$HOLD_INO]=200000"
	expect "pipe:[INO], rounded: exit status" "$RC" 0
	expect "pipe:[INO], rounded: the holder sees" "$(hold_size)" 262144
	stop_hold
}

t_data_in_ring() {
	start_hold -- 20000
	resize "$PIPESTAT" --resize "$HOLD_PID:$HOLD_R=4096"
	expect "below the data: exit status" "$RC" 1
	expect "below the data: message" "$MSG" "pipestat: will not shrink pipe $HOLD_INO to 4096 bytes: its ring holds 20000 bytes of data"
	expect "below the data: size kept" "$(hold_size)" 65536
	stop_hold
	# packet mode: 3 bytes in 3 slots, which 1 slot cannot take (EBUSY)
	start_hold -- 3 packet
	resize "$PIPESTAT" --resize "$HOLD_PID:$HOLD_W=4096"
	expect "EBUSY: exit status" "$RC" 1
	expect "EBUSY: message" "$MSG" "pipestat: cannot shrink pipe $HOLD_INO to 4096 bytes: the 3 bytes in its ring take more slots than that (EBUSY)"
	expect "EBUSY: size kept" "$(hold_size)" 65536
	stop_hold
}

t_above_max() {
	local max
	max=$(cat /proc/sys/fs/pipe-max-size)
	start_hold -- 0
	resize setpriv --bounding-set=-sys_resource --inh-caps=-sys_resource \
		"$PIPESTAT" --resize "$HOLD_PID:$HOLD_R=$((max * 2))"
	expect "EPERM: exit status" "$RC" 1
	expect "EPERM: message" "$MSG" "pipestat: cannot grow pipe $HOLD_INO to $((max * 2)) bytes: above fs.pipe-max-size ($max) without CAP_SYS_RESOURCE (EPERM)"
	expect "EPERM: size kept" "$(hold_size)" 65536
	stop_hold
}

t_gone() {
	local dead
	start_hold -- 0
	resize "$PIPESTAT" --resize "$HOLD_PID:99=1M"
	expect "no such descriptor: status" "$RC" 1
	expect "no such descriptor: message" "$MSG" "pipestat: process $HOLD_PID has no descriptor 99 (the pipe is gone)"
	resize "$PIPESTAT" --resize "$HOLD_PID:2=1M"	# /dev/null
	expect "not a pipe: message" "$MSG" "pipestat: process $HOLD_PID fd 2 is not a pipe or FIFO"
	stop_hold
	dead=$HOLD_PID
	resize "$PIPESTAT" --resize "$dead:$HOLD_R=1M"
	expect "process gone: status" "$RC" 1
	expect "process gone: message" "$MSG" "pipestat: no process $dead (gone)"
	resize "$PIPESTAT" --resize "$HOLD_INO=1M"
	expect "pipe gone: status" "$RC" 1
	expect "pipe gone: message" "$MSG" "pipestat: no process holds pipe $HOLD_INO that this user can see (gone?)"
}

t_reach() {
	# nobody cannot reach root's process: neither way is allowed
	start_hold -- 0
	resize "${AS_NOBODY[@]}" "$PIPESTAT" --resize "$HOLD_PID:$HOLD_R=1M"
	expect "unreachable: status" "$RC" 1
	expect "unreachable: message" "$MSG" "pipestat: cannot reach process $HOLD_PID: pidfd_getfd: Operation not permitted; /proc/$HOLD_PID/fd/$HOLD_R: Permission denied"
	expect "unreachable: size kept" "$(hold_size)" 65536
	stop_hold
	# real uid root, effective nobody, no capabilities: pidfd_getfd checks
	# the real uid (refused), /proc/PID/fd the effective one (allowed)
	start_hold "${AS_NOBODY[@]}" -- 0
	resize setpriv --ruid=0 --euid=65534 --rgid=0 --egid=65534 --clear-groups \
		"$PIPESTAT" --resize "$HOLD_PID:$HOLD_R=256k"
	expect "through /proc: status" "$RC" 0
	expect "through /proc: log line" "$MSG" "pipestat: resized pipe $HOLD_INO (pid $HOLD_PID fd $HOLD_R, through /proc/$HOLD_PID/fd/$HOLD_R: pidfd_getfd: Operation not permitted): 65536 -> 262144 bytes (16 -> 64 slots), confirmed by F_GETPIPE_SZ"
	expect "through /proc: the holder sees" "$(hold_size)" 262144
	stop_hold
}

t_bad_input() {
	local arg
	for arg in 1:2=x 1:2 =1M 5=3G 5=0 0=1M abc=1M 1:-1=1M "pipe:[x]=1M"; do
		resize "$PIPESTAT" --resize "$arg"
		expect "bad --resize '$arg': exit 2" "$RC" 2
		expect "bad --resize '$arg': one line" "$(wc -l <<<"$MSG")" 1
	done
	resize "$PIPESTAT" --resize 5=1M -i 1
	expect "--resize with -i: message" "$MSG" "pipestat: --resize resizes a pipe and exits: only -v with it (see pipestat --help)"
	resize "$PIPESTAT" --resize 5=1M --resize 6=1M
	expect "--resize twice: exit 2" "$RC" 2
}

t_grow_and_shrink
t_data_in_ring
t_above_max
t_gone
t_reach
t_bad_input
summary
