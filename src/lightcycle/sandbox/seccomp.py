"""The seccomp filter every sandboxed bot runs under, compiled by the system's libseccomp.

The filter is a deny list (everything not named here is allowed): a bot is an ordinary
program in any language, and an allow list that misses one system call a runtime needs
breaks that runtime in ways nobody can debug from a verdict. What it refuses is what an
ordinary program never needs and an attacker uses to get out of the sandbox, reach the
host or another process, or make the kernel's attack surface bigger:

- **Other system-call entries.** Only the machine's native ABI passes. On x86_64 the i386
  entry (``int $0x80``, which a 64-bit process can still use) and x32 numbers (``nr |
  0x40000000``) are whole second system-call tables a deny list would have to repeat: any
  call through them kills the process (``SECCOMP_RET_KILL_PROCESS``, the filter's bad-arch
  action; libseccomp checks the x32 bit itself once x32 is not one of the filter's
  architectures).
- **Other processes** (`PROCESS_ACCESS`): ``ptrace`` and the calls that read, write or
  compare another process's memory and files.
- **Kernel keyrings** (`KEYRINGS`): shared by every process of a user, not namespaced.
- **Mounts and namespaces** (`MOUNTS`, `NAMESPACES`): a bot that makes its own user
  namespace becomes root in it and can mount, pivot and reach kernel code (file systems,
  netfilter) written for root; ``clone`` with a namespace flag is refused by argument,
  and ``clone3`` answers ``ENOSYS`` because its flags sit in memory a filter cannot read:
  glibc's ``pthread_create`` and ``posix_spawn`` then fall back to ``clone`` (they only
  fall back on ``ENOSYS``, so ``EPERM`` there would break every thread).
- **The machine itself** (`MACHINE`): reboot, kexec, kernel modules, swap, accounting,
  the clocks, the kernel log, quotas, host and domain names, raw I/O ports, the LDT.
- **Attack surface** (`KERNEL_SURFACE`): ``bpf``, ``perf_event_open``, ``userfaultfd``
  (the tool of choice for winning kernel races), ``io_uring`` (its requests run in kernel
  workers that seccomp never sees, so it would bypass this filter), file handles
  (``open_by_handle_at`` escapes any chroot or bind mount), ``fanotify``, page migration of
  other processes, ``vhangup``.
- **Socket families** (`SOCKET_FAMILIES`): ``socket`` and ``socketpair`` create only
  ``AF_UNIX``, ``AF_INET`` and ``AF_INET6`` sockets, what programs and their runtimes use
  (``AF_UNIX`` for ``socketpair`` and local IPC: asyncio, multiprocessing, a JVM; the
  internet families for loopback and, with `Limits.network`, the network). Every other
  family is refused with ``EAFNOSUPPORT``: ``AF_VSOCK`` (the host's and other VMs'
  sockets, which no network namespace confines), ``AF_NETLINK`` (routing, audit, uevents,
  netfilter: a large kernel surface), ``AF_PACKET``, ``AF_ALG``, ``AF_KEY``, Bluetooth,
  CAN, TIPC, RDS, XDP and the rest. ``EAFNOSUPPORT``, not ``EPERM``: it is the kernel's own
  answer for a family it was built without (as systemd's ``RestrictAddressFamilies=``
  answers), so code that probes a family takes its "not here" path (glibc's
  ``getaddrinfo`` then assumes both internet families, as it does without netlink). The
  family is compared on the low 32 bits where the kernel reads an ``int``, and a value
  with junk in the high bits is refused whole.
- **By argument**: ``ioctl`` with ``TIOCSTI`` (push characters into the terminal's input:
  the referee's shell would run them) or ``TIOCLINUX``, compared on the low 32 bits as the
  kernel reads them (a request with junk in the high bits is the same request);
  ``personality`` except the query (``0xffffffff``): its flags turn off address-space
  randomisation for the programs the bot starts or make their data executable. (libseccomp
  allows one comparison per argument in a rule, and a deny list cannot say "none of these
  values" in fewer than dozens of rules, so setting even a harmless personality is
  refused; no runtime a bot uses sets one.)

Allowed on purpose: ``mbind``, ``set_mempolicy`` and ``get_mempolicy`` (they act on the
caller's own memory; a JVM with NUMA support calls them), ``seccomp`` (a filter a bot adds
only narrows what it may do), ``pidfd_open`` and ``pidfd_send_signal`` (the sandbox's PID
namespace bounds what they reach, as for ``kill``), ``prlimit64`` (the same), and the
namespace-free ``clone`` that ``fork`` and threads use.

Refused calls return ``EPERM``, so a program that tries one sees an ordinary error.
Names the running libseccomp does not know, or that do not exist on this machine (the
x86-only ones elsewhere), are skipped and listed by `skipped_syscalls`. The filter is
built once per process; `filter_bpf` returns the classic-BPF program that bubblewrap
loads with ``--seccomp FD``.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import os
import sys
import tempfile
from dataclasses import dataclass
from functools import cache
from typing import NoReturn

from lightcycle.sandbox.limits import SandboxError

PROCESS_ACCESS = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "process_madvise",
    "kcmp",
    "pidfd_getfd",
)
KEYRINGS = ("keyctl", "add_key", "request_key")
MOUNTS = (
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "move_mount",
    "open_tree",
    "mount_setattr",
)
NAMESPACES = ("unshare", "setns")
MACHINE = (
    "reboot",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "create_module",
    "swapon",
    "swapoff",
    "acct",
    "settimeofday",
    "stime",
    "clock_settime",
    "adjtimex",
    "clock_adjtime",
    "syslog",
    "quotactl",
    "quotactl_fd",
    "sethostname",
    "setdomainname",
    "iopl",
    "ioperm",
    "modify_ldt",
    "vm86",
    "vm86old",
    "uselib",
    "_sysctl",
    "nfsservctl",
    "lookup_dcookie",
)
KERNEL_SURFACE = (
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "open_by_handle_at",
    "name_to_handle_at",
    "fanotify_init",
    "migrate_pages",
    "move_pages",
    "vhangup",
)

DENIED: tuple[str, ...] = PROCESS_ACCESS + KEYRINGS + MOUNTS + NAMESPACES + MACHINE + KERNEL_SURFACE
"""System calls refused with ``EPERM`` whatever their arguments."""

SOCKET_FAMILIES = {"AF_UNIX": 1, "AF_INET": 2, "AF_INET6": 10}
"""The socket families a bot may create (`SOCKET_CALLS`); every other is refused with
``EAFNOSUPPORT``. Numbers from ``linux/socket.h``, the same on every architecture."""

SOCKET_CALLS = ("socket", "socketpair")
"""The calls whose first argument is a socket family (``socketcall``, the i386
multiplexer, is not native on x86_64: the bad-architecture action kills it)."""

ENOSYS_CALLS: tuple[str, ...] = ("clone3",)
"""System calls answered ``ENOSYS``, so that libc falls back to one the filter can read."""

# Namespace flags of clone(2) (the low byte is the exit signal, so CLONE_NEWTIME, 0x80,
# cannot be asked for there).
CLONE_NAMESPACE_FLAGS = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
# The one personality(2) argument allowed: the query, which changes nothing.
PERSONALITY_QUERY = 0xFFFFFFFF
# Terminal requests from asm-generic/ioctls.h (x86, arm, riscv...); termios gives the
# native value where it differs.
TIOCSTI_DEFAULT = 0x5412
TIOCLINUX_DEFAULT = 0x541C

# libseccomp's constants (seccomp.h).
SCMP_ACT_KILL_PROCESS = 0x80000000
SCMP_ACT_KILL_THREAD = 0x00000000
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_FLTATR_ACT_BADARCH = 2
SCMP_CMP_NE = 1
SCMP_CMP_GT = 6
SCMP_CMP_MASKED_EQ = 7
SCMP_ARCH_X86 = 0x40000003
SCMP_ARCH_X86_64 = 0xC000003E
SCMP_ARCH_X32 = 0x4000003E
SCMP_ARCH_S390 = 0x16
SCMP_ARCH_S390X = 0x80000016
MASK_32 = 0xFFFFFFFF

INSTALL_HINT = "run scripts/install-sandbox (apt-get install libseccomp2)"


def scmp_act_errno(code: int) -> int:
    """libseccomp's ``SCMP_ACT_ERRNO(code)``: fail the call with ``code``."""
    return 0x00050000 | (code & 0xFFFF)


class ScmpArgCmp(ctypes.Structure):
    """``struct scmp_arg_cmp``: one comparison on one argument of a system call."""

    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


@dataclass(frozen=True)
class Compiled:
    """A built filter.

    Attributes:
        bpf: the classic-BPF program, ``struct sock_filter`` entries of 8 bytes each.
        skipped: names of `DENIED` and `ENOSYS_CALLS` with no number on this machine or
            unknown to the running libseccomp (nothing to refuse).
        version: the libseccomp version that compiled it, e.g. ``"2.5.4"``.
    """

    bpf: bytes
    skipped: tuple[str, ...]
    version: str


def _fail(message: str) -> NoReturn:
    raise SandboxError(message)


@cache
def _library() -> ctypes.CDLL:
    """The system's libseccomp with the prototypes this module uses."""
    if not sys.platform.startswith("linux"):
        _fail(f"seccomp filters need Linux (this is {sys.platform}): run bots on a Linux host")
    lib: ctypes.CDLL | None = None
    try:
        lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError:  # another soname: ask the linker cache (slower, runs ldconfig)
        found = ctypes.util.find_library("seccomp")
        if found is not None:
            with contextlib.suppress(OSError):
                lib = ctypes.CDLL(found, use_errno=True)
    if lib is None:
        _fail(f"libseccomp is not installed (libseccomp.so.2 not found): {INSTALL_HINT}")
    vp, u32, cint = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int
    cmp_array = ctypes.POINTER(ScmpArgCmp)
    prototypes: dict[str, tuple[list[type], type | None]] = {
        "seccomp_init": ([u32], vp),
        "seccomp_release": ([vp], None),
        "seccomp_arch_native": ([], u32),
        "seccomp_arch_exist": ([vp, u32], cint),
        "seccomp_arch_remove": ([vp, u32], cint),
        "seccomp_attr_set": ([vp, cint, u32], cint),
        "seccomp_syscall_resolve_name": ([ctypes.c_char_p], cint),
        "seccomp_rule_add_array": ([vp, u32, cint, ctypes.c_uint, cmp_array], cint),
        "seccomp_export_bpf": ([vp, cint], cint),
    }
    for fname, (argtypes, restype) in prototypes.items():
        try:
            func = getattr(lib, fname)
        except AttributeError:
            _fail(f"libseccomp lacks {fname} (too old): {INSTALL_HINT} (2.3 or newer)")
        func.argtypes = argtypes
        func.restype = restype
    return lib


def _version(lib: ctypes.CDLL) -> str:
    """The running libseccomp's version (``seccomp_version``, 2.3+), or ``"unknown"``."""

    class Version(ctypes.Structure):
        _fields_ = [(n, ctypes.c_uint) for n in ("major", "minor", "micro")]

    try:
        func = lib.seccomp_version
    except AttributeError:
        return "unknown"
    func.restype = ctypes.POINTER(Version)
    got = func()
    if not got:
        return "unknown"
    return f"{got.contents.major}.{got.contents.minor}.{got.contents.micro}"


def _terminal_requests() -> dict[str, int]:
    """The native ``TIOCSTI`` and ``TIOCLINUX`` request numbers."""
    try:
        import termios
    except ImportError:  # pragma: no cover - every Linux Python has termios
        return {"TIOCSTI": TIOCSTI_DEFAULT, "TIOCLINUX": TIOCLINUX_DEFAULT}
    return {
        "TIOCSTI": int(getattr(termios, "TIOCSTI", TIOCSTI_DEFAULT)),
        "TIOCLINUX": int(getattr(termios, "TIOCLINUX", TIOCLINUX_DEFAULT)),
    }


class _Builder:
    """One libseccomp filter context, released by `close`."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.lib = lib
        self.ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
        if not self.ctx:
            _fail("libseccomp could not create a filter (seccomp_init failed)")
        self.skipped: list[str] = []

    def close(self) -> None:
        self.lib.seccomp_release(self.ctx)

    def check(self, rc: int, what: str) -> None:
        if rc < 0:
            _fail(f"libseccomp refused {what}: {os.strerror(-rc)}")

    def number(self, name: str) -> int | None:
        """The native number of ``name``, or None (recorded) where there is none."""
        nr = int(self.lib.seccomp_syscall_resolve_name(name.encode()))
        if nr < 0:  # __NR_SCMP_ERROR, or a pseudo-number: not a call on this machine
            self.skipped.append(name)
            return None
        return nr

    def rule(self, action: int, name: str, *cmps: tuple[int, int, int, int]) -> None:
        """Add ``action`` for ``name`` when every comparison ``(arg, op, a, b)`` holds."""
        nr = self.number(name)
        if nr is None:
            return
        array = (ScmpArgCmp * max(len(cmps), 1))(*(ScmpArgCmp(*c) for c in cmps))
        rc = self.lib.seccomp_rule_add_array(self.ctx, action, nr, len(cmps), array)
        self.check(rc, f"the rule for {name}")

    def native_only(self) -> None:
        """Keep the native ABI alone in the filter; everything else is a bad arch."""
        native = int(self.lib.seccomp_arch_native())
        for other in (SCMP_ARCH_X86, SCMP_ARCH_X32, SCMP_ARCH_X86_64):
            if other != native and self.lib.seccomp_arch_exist(self.ctx, other) == 0:
                self.check(self.lib.seccomp_arch_remove(self.ctx, other), "removing an ABI")
        # Kill the whole process: a thread killed alone would leave the rest running on.
        rc = self.lib.seccomp_attr_set(self.ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS)
        if rc < 0:  # kernels before 4.14 kill only the thread
            rc = self.lib.seccomp_attr_set(self.ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_THREAD)
        self.check(rc, "the bad-architecture action")

    def add_rules(self) -> None:
        eperm = scmp_act_errno(errno.EPERM)
        for name in DENIED:
            self.rule(eperm, name)
        for name in ENOSYS_CALLS:
            self.rule(scmp_act_errno(errno.ENOSYS), name)
        for request in _terminal_requests().values():
            self.rule(eperm, "ioctl", (1, SCMP_CMP_MASKED_EQ, MASK_32, request))
        native = int(self.lib.seccomp_arch_native())
        flags_arg = 1 if native in (SCMP_ARCH_S390, SCMP_ARCH_S390X) else 0
        for flag in CLONE_NAMESPACE_FLAGS.values():
            self.rule(eperm, "clone", (flags_arg, SCMP_CMP_MASKED_EQ, flag, flag))
        self.rule(eperm, "personality", (0, SCMP_CMP_NE, PERSONALITY_QUERY, 0))
        self.socket_families()

    def socket_families(self) -> None:
        """Refuse every socket family but `SOCKET_FAMILIES` (see the module docstring).

        libseccomp compares one argument once per rule, so "none of these" becomes: above
        the highest allowed (on all 64 bits, so junk in the high half is refused too), or
        equal on the low 32 bits to one of the values below it that is not allowed.
        """
        refuse = scmp_act_errno(errno.EAFNOSUPPORT)
        allowed = set(SOCKET_FAMILIES.values())
        highest = max(allowed)
        for name in SOCKET_CALLS:
            self.rule(refuse, name, (0, SCMP_CMP_GT, highest, 0))
            for family in range(highest):
                if family not in allowed:
                    self.rule(refuse, name, (0, SCMP_CMP_MASKED_EQ, MASK_32, family))

    def export(self) -> bytes:
        """The compiled program, through a memfd (or a temporary file without one)."""
        if hasattr(os, "memfd_create"):
            fd = os.memfd_create("lightcycle-seccomp", os.MFD_CLOEXEC)
            try:
                return self._export_to(fd)
            finally:
                os.close(fd)
        with tempfile.TemporaryFile() as file:  # pragma: no cover - Linux has memfds
            return self._export_to(file.fileno())

    def _export_to(self, fd: int) -> bytes:
        self.check(self.lib.seccomp_export_bpf(self.ctx, fd), "exporting the filter")
        size = os.lseek(fd, 0, os.SEEK_END)
        return os.pread(fd, size, 0)


@cache
def compiled() -> Compiled:
    """Build the bot filter once; raises `SandboxError` with the reason when it cannot."""
    lib = _library()
    builder = _Builder(lib)
    try:
        builder.native_only()
        builder.add_rules()
        bpf = builder.export()
    finally:
        builder.close()
    if not bpf or len(bpf) % 8:
        _fail(f"libseccomp exported a malformed filter ({len(bpf)} bytes)")
    return Compiled(bpf=bpf, skipped=tuple(builder.skipped), version=_version(lib))


def filter_bpf() -> bytes:
    """The bot filter as classic BPF (``struct sock_filter[]``), for ``bwrap --seccomp``.

    Raises:
        SandboxError: libseccomp is missing, too old, or refused a rule.
    """
    return compiled().bpf


def skipped_syscalls() -> tuple[str, ...]:
    """Names of the deny list with no number here (nothing to refuse); `()` if none."""
    return compiled().skipped


def seccomp_unavailable() -> str | None:
    """None when the bot filter can be built on this host, else one line saying why."""
    try:
        compiled()
    except SandboxError as err:
        return str(err)
    return None


def summary() -> str:
    """One line for ``lightcycle sandbox check``: what the filter refuses here."""
    built = compiled()
    count = len(DENIED) + len(ENOSYS_CALLS) - len(built.skipped)
    return (
        f"libseccomp {built.version}: {count} system calls refused, terminal injection"
        ", namespace clones and personality changes refused, sockets of families other "
        "than unix, inet and inet6 refused, other ABIs killed"
    )
