#!/usr/bin/env python3
"""A stand-in for a lab's executor in the grader's own tests (no GPU needed): it speaks the
protocol of grading/runtime/remote.h on descriptor 3, keeps "device memory" in its own process, and
sorts for Lab 01's `oddeven_sort`, so the kit's real timed driver (build/grading/timed_01_oddeven)
can time it with its data in the executor (KIT_DATA_PLANE=executor).

usage: fake_executor.py LOG NAME [BEHAVIOUR...]
  LOG: a file each event is appended to, one line each: `NAME hello PID`, `NAME sort K CRC`
  (the K-th sort call of this process, CRC of its input), `NAME exit`.
  BEHAVIOUR: slow=S, busy=S (each sort sleeps, or uses the CPU, S seconds more),
  wrong_from=K, crash_from=K, hang_from=K,
  flood_from=K (from the K-th sort call on: a wrong answer, SIGSEGV, a sleep without end,
  9 MiB on stdout); wrong_how=ends|middle|lost (the wrong answer: the first and last keys
  swapped, the two middle keys swapped, or sorted with the largest key lost);
  linger=S (at the end of its socket it waits S seconds before exiting),
  across=1 (count K over every executor of this NAME in LOG, not this process's alone: the
  reference's executor is started twice in a timed run).
  When /dev/nvidia0 exists (a file bound there by bubblewrap, in the tests) it maps it, as a
  process with a CUDA context maps the driver's device files: the timed driver checks that
  the executor opened the GPU.
"""

import mmap
import os
import signal
import socket
import struct
import sys
import time
import zlib

REQUEST = struct.Struct("<II8QQ64s")  # kit_remote_request
REPLY = struct.Struct("<qqQQ")  # kit_remote_reply
OP_CALL, OP_MALLOC, OP_FREE, OP_TO_DEVICE, OP_TO_HOST, OP_ON_DEVICE, OP_MEMSET, OP_SYNC = range(
    1, 9
)
OP_LAST_ERROR, OP_ERROR_TEXT, OP_HELLO = 9, 10, 16


def main():
    log_path, name = sys.argv[1], sys.argv[2]
    behaviour = dict(item.split("=", 1) for item in sys.argv[3:])
    sock = socket.socket(fileno=3)
    gpu = None
    if os.path.exists("/dev/nvidia0"):
        with open("/dev/nvidia0", "r+b") as f:
            f.write(b"\0" * 4096)
            f.flush()
            gpu = mmap.mmap(f.fileno(), 4096)

    def log(text):
        with open(log_path, "a") as f:
            f.write(f"{name} {text}\n")

    def receive(size):
        data = b""
        while len(data) < size:
            part = sock.recv(size - len(data))
            if not part:
                return None
            data += part
        return data

    def answer(status=0, value=0, payload=b""):
        sock.sendall(REPLY.pack(status, value, 0, len(payload)) + payload)

    memory = {}  # base address -> bytearray
    next_base = 1 << 32
    sorts = 0
    if behaviour.get("across") and os.path.exists(log_path):
        with open(log_path) as previous:
            sorts = sum(1 for line in previous if line.startswith(f"{name} sort "))

    def find(address):
        for base, block in memory.items():
            if base <= address < base + max(len(block), 1):
                return block, address - base
        raise SystemExit(f"fake executor: no buffer at {address:#x}")

    log(f"hello {os.getpid()}")
    while True:
        header = receive(REQUEST.size)
        if header is None:
            time.sleep(float(behaviour.get("linger", 0)))
            log("exit")
            return
        op, count, *rest = REQUEST.unpack(header)
        args, payload_bytes, fname = rest[:8], rest[8], rest[9].split(b"\0")[0].decode()
        payload = receive(payload_bytes) if payload_bytes else b""
        if op == OP_HELLO or op in (OP_SYNC, OP_LAST_ERROR, OP_FREE):
            answer()
        elif op == OP_MALLOC:
            memory[next_base] = bytearray(args[0])
            answer(value=next_base)
            next_base += 1 << 32
        elif op == OP_TO_DEVICE:
            block, at = find(args[0])
            block[at : at + len(payload)] = payload
            answer()
        elif op == OP_TO_HOST:
            block, at = find(args[0])
            answer(payload=bytes(block[at : at + args[1]]))
        elif op == OP_ERROR_TEXT:
            answer(payload=b"fake error")
        elif op == OP_CALL and fname == "oddeven_sort" and count == 2:
            sorts += 1
            block, at = find(args[0])
            n = args[1]
            keys = list(struct.unpack_from(f"<{n}I", block, at))
            log(f"sort {sorts} {zlib.crc32(struct.pack(f'<{n}I', *keys))}")
            if sorts >= int(behaviour.get("crash_from", 1 << 62)):
                os.kill(os.getpid(), signal.SIGSEGV)
            if sorts >= int(behaviour.get("hang_from", 1 << 62)):
                time.sleep(3600)
            if sorts >= int(behaviour.get("flood_from", 1 << 62)):
                for _ in range(9 * 1024):
                    sys.stdout.write("x" * 1023 + "\n")
                sys.stdout.flush()
            time.sleep(float(behaviour.get("slow", 0)))
            spin_until = time.process_time() + float(behaviour.get("busy", 0))
            while time.process_time() < spin_until:  # a sort done on the host, as it costs
                pass
            keys.sort()
            if sorts >= int(behaviour.get("wrong_from", 1 << 62)) and n > 1:
                how = behaviour.get("wrong_how", "ends")
                if how == "middle":  # one inversion, in the middle
                    keys[n // 2 - 1], keys[n // 2] = keys[n // 2], keys[n // 2 - 1]
                elif how == "lost":  # still sorted, but the largest key is lost
                    keys[-1] = keys[-2]
                else:
                    keys[0], keys[-1] = keys[-1], keys[0]
            struct.pack_into(f"<{n}I", block, at, *keys)
            answer()
        else:
            answer(status=1)  # cudaErrorInvalidValue: nothing else is needed here
    del gpu


if __name__ == "__main__":
    main()
