#!/usr/bin/env bash
# pipestat --resize: a live pipe held by another process is resized, and
# that process sees the new size with F_GETPIPE_SZ; each case it must
# refuse says why in one line. It takes descriptors with pidfd_getfd()
# only: root never opens what another user's descriptor names (an O_PATH
# descriptor, one flipping under it). Pipes are named by device and
# inode. No BPF: plain system calls.
set -u
cd "$(dirname "$0")/../.."
. tests/host/lib.sh

if [ "$(id -u)" != 0 ]; then
	echo "tests/host/test_resize.sh: needs root (other users' processes)"; exit 1
fi
AS_NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
RESIZEWORK=${RESIZEWORK:-tests/host/resizework}
# nobody reaches the files the hostile holders name below $TMP
chmod 711 "$TMP"

# resize ARGS...: pipestat --resize ..., stderr in $MSG, status in $RC
resize() { MSG=$("$@" 2>&1 >/dev/null); RC=$?; }

# traced ARGS...: resize under strace, every open and openat of pipestat's
# in $TMP/strace
traced() { resize strace -f -qq -o "$TMP/strace" -e trace=open,openat "$@"; }

# proc_fd_opens: the opens of a descriptor through /proc/PID[/task/TID]/fd
proc_fd_opens() { grep -cE '"/proc/[0-9]+/(task/[0-9]+/)?fd/[0-9]+"' "$TMP/strace"; }

# start_bg NAME CMD...: CMD in the background, stdin on a FIFO held open
# on fd 8 (closing it is CMD's "stop"), stdout in $TMP/NAME; waits for its
# first line
start_bg() {
	local name=$1
	shift
	rm -f "$TMP/$name.in"; mkfifo "$TMP/$name.in"; : >"$TMP/$name"
	"$@" <"$TMP/$name.in" >"$TMP/$name" &
	exec 8>"$TMP/$name.in"
	for _ in $(seq 100); do [ -s "$TMP/$name" ] && break; sleep 0.05; done
}
stop_bg() { exec 8>&-; wait "$1" 2>/dev/null; }

# watch_opens PATH / stop_opens: resizework opens on PATH, on fd 9; its
# count in $OPENS (not in a $(...): the subshell's fd 9 is a copy)
watch_opens() {
	rm -f "$TMP/opens.in"; mkfifo "$TMP/opens.in"; : >"$TMP/opens"
	"$RESIZEWORK" opens "$1" <"$TMP/opens.in" >"$TMP/opens" &
	OPENS_PID=$!
	exec 9>"$TMP/opens.in"
	for _ in $(seq 100); do grep -q ready "$TMP/opens" && break; sleep 0.05; done
}
stop_opens() {
	exec 9>&-
	wait "$OPENS_PID"
	OPENS=$(sed -n 's/^opens=//p' "$TMP/opens")
}

# word NAME FILE: NAME=VALUE's value in FILE's first line
word() { sed -n "1s/.*\\b$1=\\([0-9:]*\\).*/\\1/p" "$2"; }

t_grow_and_shrink() {
	start_hold -- 0
	resize "$PIPESTAT" --resize "$HOLD_PID:$HOLD_R=1M"
	expect "grow by PID:FD: exit status" "$RC" 0
	expect "grow by PID:FD: log line" "$MSG" "pipestat: resized pipe $HOLD_DEV:$HOLD_INO (pid $HOLD_PID fd $HOLD_R, pidfd_getfd): 65536 -> 1048576 bytes (16 -> 256 slots), confirmed by F_GETPIPE_SZ"
	expect "grow by PID:FD: the holder sees" "$(hold_size)" 1048576
	resize "$PIPESTAT" --resize "$HOLD_DEV:$HOLD_INO=128k"
	expect "shrink by DEV:INO: exit status" "$RC" 0
	expect "shrink by DEV:INO: sizes" "$(grep -o '1048576 -> .*slots)' <<<"$MSG")" "1048576 -> 131072 bytes (256 -> 32 slots)"
	expect "shrink by DEV:INO: the holder sees" "$(hold_size)" 131072
	# a bare inode on one device only will do
	resize "$PIPESTAT" --resize "$HOLD_INO=64k"
	expect "bare INO, one device: exit status" "$RC" 0
	expect "bare INO, one device: the holder sees" "$(hold_size)" 65536
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
	expect "below the data: message" "$MSG" "pipestat: will not shrink pipe $HOLD_DEV:$HOLD_INO to 4096 bytes: its ring holds 20000 bytes of data"
	expect "below the data: size kept" "$(hold_size)" 65536
	stop_hold
	# packet mode: 3 bytes in 3 slots, which 1 slot cannot take (EBUSY)
	start_hold -- 3 packet
	resize "$PIPESTAT" --resize "$HOLD_PID:$HOLD_W=4096"
	expect "EBUSY: exit status" "$RC" 1
	expect "EBUSY: message" "$MSG" "pipestat: cannot shrink pipe $HOLD_DEV:$HOLD_INO to 4096 bytes: the 3 bytes in its ring take more slots than that (EBUSY)"
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
	expect "EPERM: message" "$MSG" "pipestat: cannot grow pipe $HOLD_DEV:$HOLD_INO to $((max * 2)) bytes: above fs.pipe-max-size ($max) without CAP_SYS_RESOURCE (EPERM)"
	expect "EPERM: size kept" "$(hold_size)" 65536
	stop_hold
}

t_gone() {
	local dead
	start_hold -- 0
	resize "$PIPESTAT" --resize "$HOLD_PID:99=1M"
	expect "no such descriptor: status" "$RC" 1
	expect "no such descriptor: message" "$MSG" "pipestat: process $HOLD_PID has no descriptor 99 (the pipe is gone, or a thread of its holds it alone: name the pipe as DEV:INO): pidfd_getfd: Bad file descriptor"
	resize "$PIPESTAT" --resize "$HOLD_PID:2=1M"	# /dev/null
	expect "not a pipe: message" "$MSG" "pipestat: process $HOLD_PID fd 2 is not a pipe or FIFO"
	stop_hold
	dead=$HOLD_PID
	resize "$PIPESTAT" --resize "$dead:$HOLD_R=1M"
	expect "process gone: status" "$RC" 1
	expect "process gone: message, the call that failed" "$MSG" "pipestat: no process $dead (gone): pidfd_open: No such process"
	resize "$PIPESTAT" --resize "$HOLD_DEV:$HOLD_INO=1M"
	expect "pipe gone: status" "$RC" 1
	expect "pipe gone: message" "$MSG" "pipestat: no process holds pipe $HOLD_DEV:$HOLD_INO that this user can see (gone?)"
}

t_reach() {
	# nobody cannot reach root's process
	start_hold -- 0
	resize "${AS_NOBODY[@]}" "$PIPESTAT" --resize "$HOLD_PID:$HOLD_R=1M"
	expect "unreachable: status" "$RC" 1
	expect "unreachable: message" "$MSG" "pipestat: cannot reach process $HOLD_PID: pidfd_getfd: Operation not permitted (it needs ptrace access: the same user, or CAP_SYS_PTRACE)"
	expect "unreachable: size kept" "$(hold_size)" 65536
	stop_hold
	# real uid root, effective nobody, no capabilities: pidfd_getfd checks
	# the real uid and refuses; /proc/PID/fd would have let the effective
	# uid open the pipe, and is not tried
	start_hold "${AS_NOBODY[@]}" -- 0
	traced setpriv --ruid=0 --euid=65534 --rgid=0 --egid=65534 --clear-groups \
		"$PIPESTAT" --resize "$HOLD_PID:$HOLD_R=256k"
	expect "no /proc fallback: status" "$RC" 1
	expect "no /proc fallback: message" "$MSG" "pipestat: cannot reach process $HOLD_PID: pidfd_getfd: Operation not permitted (it needs ptrace access: the same user, or CAP_SYS_PTRACE)"
	expect "no /proc fallback: no open of /proc/PID/fd/N" "$(proc_fd_opens)" 0
	expect "no /proc fallback: size kept" "$(hold_size)" 65536
	stop_hold
}

# nobody's O_PATH descriptor on root's 0600 FIFO: root must not open the
# FIFO (by any name: the inotify watch sees every open of it)
t_opath() {
	local pid tid fd
	mkfifo -m 600 "$TMP/fifo"
	start_bg opath "${AS_NOBODY[@]}" "$RESIZEWORK" opath "$TMP/fifo"
	pid=$(word pid "$TMP/opath") tid=$(word tid "$TMP/opath") fd=$(word fd "$TMP/opath")
	watch_opens "$TMP/fifo"
	for who in "$tid" "$pid"; do
		traced "$PIPESTAT" --resize "$who:$fd=1M"
		expect "O_PATH by $([ "$who" = "$pid" ] && echo PID || echo TID):FD: refused" "$RC" 1
		expect "O_PATH by $([ "$who" = "$pid" ] && echo PID || echo TID):FD: one line" "$MSG" \
			"pipestat: process $who fd $fd is an O_PATH descriptor, not an open pipe: refused"
		expect "O_PATH by $([ "$who" = "$pid" ] && echo PID || echo TID):FD: no open of /proc/PID/fd/N" "$(proc_fd_opens)" 0
	done
	resize "$PIPESTAT" --resize "$(stat -c %i "$TMP/fifo")=1M"
	expect "O_PATH by INO: not a holder" "$MSG" "pipestat: no process holds pipe $(stat -c %i "$TMP/fifo") that this user can see (gone?)"
	stop_opens
	expect "O_PATH: root never opened the FIFO" "$OPENS" 0
	stop_bg "$pid"
}

# the descriptor flips between a pipe and an O_PATH descriptor of a root
# 0600 file: whatever a resize takes, root never opens the file
t_flip() {
	local pid tid fd resized=0 refused=0 other=0
	echo secret >"$TMP/secret"; chmod 600 "$TMP/secret"
	start_bg flip "${AS_NOBODY[@]}" "$RESIZEWORK" flip "$TMP/secret"
	pid=$(word pid "$TMP/flip") tid=$(word tid "$TMP/flip") fd=$(word fd "$TMP/flip")
	watch_opens "$TMP/secret"
	for _ in $(seq 100); do
		resize "$PIPESTAT" --resize "$tid:$fd=1M"
		case $RC:$MSG in
		0:"pipestat: resized pipe "*) resized=$((resized + 1));;
		1:"pipestat: process $tid fd $fd is an O_PATH descriptor, not an open pipe: refused"|\
		1:"pipestat: process $tid fd $fd is not a pipe or FIFO") refused=$((refused + 1));;
		*) other=$((other + 1)); echo "# $RC: $MSG";;
		esac
	done
	stop_opens
	expect "flip: root never opened the root-only file in 100 resizes" "$OPENS" 0
	expect "flip: each resize took the pipe or refused" "$other" 0
	expect "flip: the race ran (both seen: $resized resized, $refused refused)" \
		"$((resized > 0 && refused > 0))" 1
	stop_bg "$pid"
}

# a FIFO on a tmpfs with the live pipe's inode number, held by a lower
# PID: a bare INO is ambiguous, DEV:INO picks either
t_same_inode() {
	local fifo_pid fifo_dev
	mkdir "$TMP/tmpfs"
	mount -t tmpfs -o size=64k,mode=711 pipetrace-test "$TMP/tmpfs" ||
		{ not_ok "same inode: mount a tmpfs"; return; }
	AT_EXIT="umount '$TMP/tmpfs'; $AT_EXIT"
	# the FIFO's holder starts first, so that its PID is the lower
	rm -f "$TMP/go"; mkfifo "$TMP/go"
	(read -r _; exec 3<>"$TMP/tmpfs/fifo"; echo opened; read -r _) <"$TMP/go" >"$TMP/fifo_held" &
	fifo_pid=$!
	exec 8>"$TMP/go"
	start_hold -- 0
	"$RESIZEWORK" fifo "$TMP/tmpfs" "$HOLD_INO" >"$TMP/fifo_made" ||
		{ not_ok "same inode: a FIFO numbered $HOLD_INO"; exec 8>&-; stop_hold; return; }
	fifo_dev=$(word dev "$TMP/fifo_made")
	echo >&8
	for _ in $(seq 100); do [ -s "$TMP/fifo_held" ] && break; sleep 0.05; done
	resize "$PIPESTAT" --resize "$HOLD_INO=1M"
	expect "same inode: bare INO refused" "$RC" 1
	expect "same inode: the candidates, one line" "$MSG" "pipestat: pipe $HOLD_INO is ambiguous: that inode is on 2 devices, $fifo_dev:$HOLD_INO (pid $fifo_pid fd 3), $HOLD_DEV:$HOLD_INO (pid $HOLD_PID fd $HOLD_R); name one as DEV:INO"
	expect "same inode: the pipe kept" "$(hold_size)" 65536
	resize "$PIPESTAT" --resize "$HOLD_DEV:$HOLD_INO=1M"
	expect "same inode: the pipe's DEV:INO" "$MSG" "pipestat: resized pipe $HOLD_DEV:$HOLD_INO (pid $HOLD_PID fd $HOLD_R, pidfd_getfd): 65536 -> 1048576 bytes (16 -> 256 slots), confirmed by F_GETPIPE_SZ"
	expect "same inode: the pipe's holder sees" "$(hold_size)" 1048576
	resize "$PIPESTAT" --resize "$fifo_dev:$HOLD_INO=256k"
	expect "same inode: the FIFO's DEV:INO" "$MSG" "pipestat: resized pipe $fifo_dev:$HOLD_INO (pid $fifo_pid fd 3, pidfd_getfd): 65536 -> 262144 bytes (16 -> 64 slots), confirmed by F_GETPIPE_SZ"
	expect "same inode: the pipe untouched by it" "$(hold_size)" 1048576
	exec 8>&-	# the FIFO's holder ends once its holder's copy goes too
	stop_hold
}

# a pipe held only by a thread whose group leader exited
t_thread() {
	start_hold -- 0 thread
	expect "thread: the leader is gone" "$(sed -n 's/^State:\t\(.\).*/\1/p' "/proc/$HOLD_PID/status")" Z
	[ "$HOLD_TID" != "$HOLD_PID" ] && ok "thread: held by thread $HOLD_TID" || not_ok "thread: tid $HOLD_TID"
	resize "$PIPESTAT" --resize "$HOLD_INO=1M"
	expect "thread: found by INO" "$MSG" "pipestat: resized pipe $HOLD_DEV:$HOLD_INO (pid $HOLD_PID tid $HOLD_TID fd $HOLD_R, pidfd_getfd): 65536 -> 1048576 bytes (16 -> 256 slots), confirmed by F_GETPIPE_SZ"
	expect "thread: the holder sees" "$(hold_size)" 1048576
	resize "$PIPESTAT" --resize "$HOLD_DEV:$HOLD_INO=128k"
	expect "thread: by DEV:INO" "$RC" 0
	expect "thread: by DEV:INO, the holder sees" "$(hold_size)" 131072
	resize "$PIPESTAT" --resize "$HOLD_TID:$HOLD_R=256k"
	expect "thread: by TID:FD" "$RC" 0
	expect "thread: by TID:FD, the holder sees" "$(hold_size)" 262144
	stop_hold
}

# root grows nobody's pipe: the pages are nobody's, and nobody's new pipes
# get 2 slots once they take it over fs.pipe-user-pages-soft (100 here:
# 64 pages + 16 for a new pipe are within it, 128 + 16 are not)
t_quota() {
	local soft why="(uid 65534 is the holder's real uid: the kernel charges the pipe's creator, which it does not show)"
	soft=$(cat /proc/sys/fs/pipe-user-pages-soft)
	AT_EXIT="echo $soft >/proc/sys/fs/pipe-user-pages-soft; $AT_EXIT"
	echo 100 >/proc/sys/fs/pipe-user-pages-soft
	start_hold "${AS_NOBODY[@]}" -- 0
	resize "$PIPESTAT" --resize "$HOLD_PID:$HOLD_R=256k"
	expect "quota: within" "$(sed -n 2p <<<"$MSG")" "pipestat: uid 65534 is charged 48 more pipe pages, within fs.pipe-user-pages-soft (100): its new pipes still get 16 slots $why"
	resize "$PIPESTAT" --resize "$HOLD_PID:$HOLD_R=1M"
	expect "quota: taken over" "$(sed -n 2p <<<"$MSG")" "pipestat: uid 65534 is charged 192 more pipe pages, which takes it over fs.pipe-user-pages-soft (100): its new pipes get 2 slots $why"
	expect "quota: as said, nobody's next pipe" \
		"$("${AS_NOBODY[@]}" "$PIPEWORK" hold 0 </dev/null | sed -n 's/.* size=//p')" 8192
	resize "$PIPESTAT" --resize "$HOLD_PID:$HOLD_R=512k"
	expect "quota: a shrink says nothing of it" "$(wc -l <<<"$MSG")" 1
	resize "$PIPESTAT" --resize "$HOLD_PID:$HOLD_R=1M"
	expect "quota: over already" "$(sed -n 2p <<<"$MSG")" "pipestat: uid 65534 is charged 128 more pipe pages, over fs.pipe-user-pages-soft (100): its new pipes get 2 slots already $why"
	stop_hold
	# root's own pipe: nothing charged to another user
	start_hold -- 0
	resize "$PIPESTAT" --resize "$HOLD_PID:$HOLD_R=1M"
	expect "quota: root's own pipe, one line" "$(wc -l <<<"$MSG")" 1
	stop_hold
	echo "$soft" >/proc/sys/fs/pipe-user-pages-soft
}

t_bad_input() {
	local arg
	for arg in 1:2=x 1:2 =1M 5=3G 5=0 0=1M abc=1M 1:-1=1M "pipe:[x]=1M" \
		1:2:3:4=1M 0:0:5=1M 0:15:0=1M 4096:1:5=1M 0:15:=1M :5=1M "pipe:[0:15:5]=1M"; do
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
t_opath
t_flip
t_same_inode
t_thread
t_quota
t_bad_input
summary
