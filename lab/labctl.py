#!/usr/bin/env python3
"""The host's end of the lab VM's control port and QMP monitor (used by lab/run.sh).

The guest's /init writes ``BUDDYSCOPE-STOP NAME`` on its second serial port and waits. This
stops the VM (QMP ``stop``), writes its memory with ``dump-guest-memory`` (ELF, with the
VMCOREINFO note that qemu_fw_cfg gave qemu) to DUMPDIR/NAME.elf, resumes it (``cont``) and
answers ``BUDDYSCOPE-CONTINUE NAME``. ``BUDDYSCOPE-DONE`` ends it; ``BUDDYSCOPE-FAILED`` or a
timeout is an error. Timings go to OUT/labctl.json.
"""

import argparse
import json
import os
import socket
import sys
import time


def connect(path, deadline):
    while True:
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            return s
        except OSError:
            s.close()
            if time.time() > deadline:
                raise SystemExit(f"labctl: cannot connect to {path}")
            time.sleep(0.1)


class Qmp:
    def __init__(self, sock):
        self.f = sock.makefile("rw", encoding="utf-8", newline="\n")
        self.recv()  # greeting
        self.cmd("qmp_capabilities")

    def recv(self):
        line = self.f.readline()
        if not line:
            raise SystemExit("labctl: QMP closed")
        return json.loads(line)

    def cmd(self, name, **args):
        self.f.write(json.dumps({"execute": name, "arguments": args}) + "\n")
        self.f.flush()
        while True:
            msg = self.recv()
            if "return" in msg:
                return msg["return"]
            if "error" in msg:
                raise SystemExit(f"labctl: QMP {name}: {msg['error']}")
            # events (STOP, RESUME, DUMP_COMPLETED...) are skipped


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ctl", required=True)
    ap.add_argument("--qmp", required=True)
    ap.add_argument("--dumps", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--timeout", type=float, default=3600)
    a = ap.parse_args()
    t_start = time.time()
    deadline = t_start + a.timeout
    ctl = connect(a.ctl, t_start + 60)
    qmp = Qmp(connect(a.qmp, t_start + 60))
    ctl.settimeout(5)
    log = {"points": [], "started": t_start}
    buf = b""
    os.makedirs(a.dumps, exist_ok=True)
    while True:
        if time.time() > deadline:
            raise SystemExit(f"labctl: no BUDDYSCOPE-DONE within {a.timeout} s")
        try:
            chunk = ctl.recv(4096)
        except socket.timeout:
            continue
        if not chunk:
            raise SystemExit("labctl: the control port closed before BUDDYSCOPE-DONE")
        buf += chunk
        while b"\n" in buf:
            raw, buf = buf.split(b"\n", 1)
            line = raw.decode("utf-8", "replace").strip()
            words = line.split()
            if not words:
                continue
            if words[0] == "BUDDYSCOPE-STOP" and len(words) == 2:
                name = words[1]
                t0 = time.time()
                qmp.cmd("stop")
                path = os.path.join(os.path.abspath(a.dumps), name + ".elf")
                qmp.cmd("dump-guest-memory", paging=False, protocol="file:" + path)
                t1 = time.time()
                qmp.cmd("cont")
                ctl.sendall(f"BUDDYSCOPE-CONTINUE {name}\n".encode())
                log["points"].append({"name": name, "at": t0 - t_start, "dump_seconds": t1 - t0,
                                      "dump": path, "bytes": os.path.getsize(path)})
                print(f"labctl: dumped {name} ({os.path.getsize(path) >> 20} MiB) in {t1 - t0:.1f} s",
                      file=sys.stderr)
            elif words[0] == "BUDDYSCOPE-DONE":
                log["done"] = time.time() - t_start
                with open(a.log, "w") as f:
                    json.dump(log, f, indent=1)
                return 0
            elif words[0] == "BUDDYSCOPE-FAILED":
                log["failed"] = line
                with open(a.log, "w") as f:
                    json.dump(log, f, indent=1)
                raise SystemExit(f"labctl: the guest failed: {line}")


if __name__ == "__main__":
    sys.exit(main())
