"""A Debian bookworm VM with a cgroup v2 kernel, booted under qemu (software emulation: no KVM needed).

The image holds only what Debian ships (kernel, initramfs, python3's libraries,
bubblewrap); the project and its Python environment are the host's, shared
read-only over 9p at the same paths, so the guest runs the very code and
packages the host tests, and the image depends only on its package list. It is
built once per set of inputs and kept in :data:`CACHE` (``<hash of the inputs>/``):

    vmlinuz, initrd.img   the guest's kernel and initramfs (booted with -kernel/-initrd)
    rootfs.ext4           its root file system (mkfs.ext4 -d), booted read-only: runs share one image

:func:`boot` starts the guest with ``init=`` :data:`INIT` (in the image: it
mounts the shares, then runs the ``guest.sh`` the host put in the results
share) and waits until it powers off; the results share comes back to the host.

    python -m tests.cgroup2.vm build    # make the image now (about 2 minutes idle; needs root and the network)
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

CACHE = Path(os.environ.get("SEQMODELS_VM_CACHE", "/var/cache/seqmodels-vm"))
SUITE = "bookworm"
MIRROR = "http://deb.debian.org/debian"
#: the guest's packages: a kernel with cgroup v2, python3 for its shared libraries (the host's interpreter
#: runs), what the sandbox runs (bubblewrap; setpriv and prlimit are util-linux), kmod to load 9p
PACKAGES = ("linux-image-amd64", "initramfs-tools", "python3", "bubblewrap", "util-linux", "kmod", "procps")
IMAGE_MB = 1536
#: the guest's first process, inside the image: mount what a distribution's init would, then the shares
INIT = "/sbin/course-test-init"
INIT_SCRIPT = r"""#!/bin/sh
# PID 1 of the test VM: the mounts a distribution's init makes, then the host's shares, then the host's script.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm && mount -t devpts devpts /dev/pts && mount -t tmpfs -o mode=1777 shm /dev/shm
mount -t tmpfs -o mode=1777 tmp /tmp
mount -t tmpfs -o mode=755 run /run
# what systemd mounts on every v2 distribution (Debian 12, Ubuntu 22.04+, Fedora, RHEL 9)
mount -t cgroup2 -o nsdelegate cgroup2 /sys/fs/cgroup
modprobe -a 9pnet_virtio 9p
mkdir -p /run/host
mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 results /run/host
exec /bin/sh /run/host/guest.sh > /dev/ttyS0 2>&1
"""


def inputs_hash() -> str:
    """What the image is made of: a new hash (a new image) when any of it changes."""
    text = "\n".join([SUITE, MIRROR, " ".join(PACKAGES), str(IMAGE_MB), INIT_SCRIPT])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Image:
    folder: Path

    @property
    def kernel(self) -> Path:
        return self.folder / "vmlinuz"

    @property
    def initrd(self) -> Path:
        return self.folder / "initrd.img"

    @property
    def rootfs(self) -> Path:
        return self.folder / "rootfs.ext4"

    @property
    def ready(self) -> bool:
        return all(p.is_file() for p in (self.kernel, self.initrd, self.rootfs))


def image() -> Image:
    return Image(CACHE / inputs_hash())


def build(log=print) -> tuple[Image, float]:
    """The cached image, made first if missing; returns it and the seconds the making took (0 when cached)."""
    made = image()
    if made.ready:
        return made, 0.0
    start = time.monotonic()
    CACHE.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="build-", dir=CACHE))
    try:
        root = work / "root"
        log(f"debootstrap {SUITE} into {root}")
        subprocess.run(
            ["debootstrap", "--variant=minbase", f"--include={','.join(PACKAGES)}", SUITE, str(root), MIRROR],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        (root / INIT.lstrip("/")).write_text(INIT_SCRIPT)
        (root / INIT.lstrip("/")).chmod(0o755)
        kernels = sorted((root / "boot").glob("vmlinuz-*"))
        initrds = sorted((root / "boot").glob("initrd.img-*"))
        if not kernels or not initrds:
            raise RuntimeError(f"debootstrap left no kernel or initramfs in {root / 'boot'}")
        out = work / "image"
        out.mkdir()
        shutil.copy(kernels[-1], out / "vmlinuz")
        shutil.copy(initrds[-1], out / "initrd.img")
        shutil.rmtree(root / "var" / "cache" / "apt" / "archives", ignore_errors=True)
        subprocess.run(
            ["mkfs.ext4", "-q", "-L", "root", "-d", str(root), str(out / "rootfs.ext4"), f"{IMAGE_MB}M"], check=True
        )
        if made.folder.exists():
            shutil.rmtree(made.folder)
        out.rename(made.folder)  # whole or not at all: a build stopped half way leaves no image
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return made, time.monotonic() - start


def shared_folders() -> list[str]:
    """The host folders the guest needs at the same paths: the interpreter, the venv, and where the
    project's packages are (the tree under test and the editable install's)."""
    import importlib.util

    wanted = {sys.base_prefix, sys.prefix}
    for name in ("instructor", "course", "course_data", "tests"):
        spec = importlib.util.find_spec(name)
        if spec and spec.submodule_search_locations:
            wanted.add(str(Path(next(iter(spec.submodule_search_locations))).resolve().parent))
    wanted = {str(Path(p).resolve()) for p in wanted}
    # a folder inside another shared one is seen through it
    return sorted(p for p in wanted if not any(p != q and Path(p).is_relative_to(q) for q in wanted))


@dataclass(frozen=True)
class Boot:
    returncode: int
    console: str  # the serial console: the kernel's messages and the guest script's output
    seconds: float  # from qemu's start to its exit


def boot(
    img: Image, guest_script: str, results: Path, cpus: int = 1, memory_mb: int = 2048, timeout: float = 900
) -> Boot:
    """Boot ``img`` with ``guest_script`` as the init's last step; ``results`` is the guest's /run/host (rw).

    The disk is a snapshot (the guest may write, the image stays as built); the folders of
    :func:`shared_folders` are listed in ``results/shares`` for the guest to mount read-only.
    """
    results.mkdir(parents=True, exist_ok=True)
    (results / "guest.sh").write_text(guest_script)
    shares = shared_folders()
    args = [
        "qemu-system-x86_64",
        "-machine", "q35,accel=tcg",
        "-cpu", "max",
        "-smp", str(cpus),
        "-m", str(memory_mb),
        "-nographic", "-no-reboot", "-nodefaults", "-serial", "stdio",
        "-kernel", str(img.kernel),
        "-initrd", str(img.initrd),
        "-drive", f"file={img.rootfs},if=virtio,format=raw,snapshot=on",
        "-append", f"root=/dev/vda rw console=ttyS0 init={INIT} panic=-1 quiet loglevel=3",
        "-virtfs", f"local,path={results},mount_tag=results,security_model=none,id=results",
    ]  # fmt: skip
    for i, folder in enumerate(shares):
        args += ["-virtfs", f"local,path={folder},mount_tag=share{i},security_model=none,readonly=on,id=share{i}"]
    (results / "shares").write_text("".join(f"share{i} {folder}\n" for i, folder in enumerate(shares)))
    start = time.monotonic()
    with open(results / "console.txt", "wb") as console:
        try:
            code = subprocess.run(
                args, stdin=subprocess.DEVNULL, stdout=console, stderr=subprocess.STDOUT, timeout=timeout
            ).returncode
        except subprocess.TimeoutExpired:  # run() killed qemu
            code = -9
    text = (results / "console.txt").read_text(errors="replace")
    return Boot(code, text, time.monotonic() - start)


if __name__ == "__main__":
    if sys.argv[1:] == ["build"]:
        made, seconds = build()
        print(f"{made.folder}: {f'made in {seconds:.0f} s' if seconds else 'cached'}")
    else:
        sys.exit(__doc__)
