/* attack WHAT [ARG]: try one thing the bot seccomp filter must refuse; say what happened.
 *
 * Its last line is "WHAT ok" when the attempt worked or "WHAT errno=N" when the kernel
 * (or the filter) refused it, and it exits 0; a process the filter kills prints no such
 * line (the test sees SIGSYS). Every attempt is harmless when it works: the ptrace victim is
 * this program's own forked parent, the mount is made in the private mount namespace the
 * test runs it in, new namespaces are this process's own, injected terminal input goes
 * to the test's pseudo-terminal, and nothing is left open or mounted afterwards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/io_uring.h>
#include <linux/keyctl.h>
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int report(const char *what, long rc) {
    if (rc < 0)
        printf("%s errno=%d\n", what, errno);
    else
        printf("%s ok\n", what);
    fflush(stdout);
    return 0;
}

/* Fork; the child attaches to its parent (this process), waits for the stop, detaches. */
static int attack_ptrace(void) {
    fflush(stdout);
    pid_t child = fork();
    if (child < 0)
        return report("ptrace", -1);
    if (child == 0) {
        pid_t parent = getppid();
        long rc = ptrace(PTRACE_ATTACH, parent, 0, 0);
        if (rc == 0) {
            int status;
            waitpid(parent, &status, __WALL);
            ptrace(PTRACE_DETACH, parent, 0, 0);
        }
        report("ptrace", rc);
        _exit(0);
    }
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    return 0;
}

static int attack_keyctl(void) {
    return report("keyctl", syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_PROCESS_KEYRING, 1));
}

static int attack_mount(const char *dir) {
    long rc = mount("lightcycle", dir, "tmpfs", 0, "size=1m");
    if (rc == 0)
        umount2(dir, 0);
    return report("mount", rc);
}

/* clone(2) with FLAGS (a namespace flag), like fork otherwise; the child exits at once. */
static int attack_clone(const char *flags) {
    long pid = syscall(SYS_clone, strtoul(flags, NULL, 0) | SIGCHLD, 0, 0, 0, 0);
    if (pid == 0)
        syscall(SYS_exit, 0);
    if (pid > 0)
        waitpid((pid_t)pid, NULL, 0);
    return report("clone", pid);
}

static int attack_clone3(unsigned long long flags, const char *what) {
    struct clone_args args;
    memset(&args, 0, sizeof args);
    args.flags = flags;
    args.exit_signal = SIGCHLD;
    long pid = syscall(SYS_clone3, &args, sizeof args);
    if (pid == 0)
        syscall(SYS_exit, 0);
    if (pid > 0)
        waitpid((pid_t)pid, NULL, 0);
    return report(what, pid);
}

/* getpid through the i386 entry (eax = 20 is i386 getpid). */
static int attack_int80(void) {
    long ret;
    __asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory", "rcx", "r11");
    if (ret == getpid())
        return report("int80", 0);
    errno = ret < 0 ? (int)-ret : EINVAL;
    return report("int80", -1);
}

static void *int80_thread_main(void *arg) {
    (void)arg;
    attack_int80();
    return NULL;
}

/* The i386 entry from a second thread: a filter that kills only the calling thread would
 * let the main thread carry on and report "ok" after joining it. */
static int attack_int80_thread(void) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, int80_thread_main, NULL) != 0)
        return report("int80_thread", -1);
    pthread_join(thread, NULL);
    return report("int80_thread", 0);
}

/* getpid (39) with the x32 bit set. */
static int attack_x32(void) {
    long ret = syscall(39 | 0x40000000L);
    if (ret == getpid())
        return report("x32", 0);
    if (ret >= 0)
        errno = EINVAL;
    return report("x32", -1);
}

/* Make the test's pty our controlling terminal (needed without CAP_SYS_ADMIN), inject. */
static int attack_tiocsti(unsigned long high, const char *what) {
    setsid();
    ioctl(0, TIOCSCTTY, 0);
    char c = 'x';
    return report(what, syscall(SYS_ioctl, 0, high | (unsigned long)TIOCSTI, &c));
}

static int attack_tioclinux(void) {
    char subcode = 6; /* TIOCL_GETSHIFTSTATE: reads, changes nothing */
    return report("tioclinux", ioctl(0, TIOCLINUX, &subcode));
}

static int attack_io_uring(void) {
    struct io_uring_params params;
    memset(&params, 0, sizeof params);
    long fd = syscall(SYS_io_uring_setup, 4, &params);
    if (fd >= 0)
        close((int)fd);
    return report("io_uring", fd);
}

static int attack_personality(unsigned long persona, const char *what) {
    return report(what, syscall(SYS_personality, persona));
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: attack WHAT [ARG]\n");
        return 2;
    }
    const char *what = argv[1];
    if (!strcmp(what, "ptrace"))
        return attack_ptrace();
    if (!strcmp(what, "keyctl"))
        return attack_keyctl();
    if (!strcmp(what, "mount") && argc > 2)
        return attack_mount(argv[2]);
    if (!strcmp(what, "unshare_user"))
        return report(what, unshare(CLONE_NEWUSER));
    if (!strcmp(what, "clone") && argc > 2)
        return attack_clone(argv[2]);
    if (!strcmp(what, "clone3_newuser"))
        return attack_clone3(CLONE_NEWUSER, what);
    if (!strcmp(what, "int80"))
        return attack_int80();
    if (!strcmp(what, "int80_thread"))
        return attack_int80_thread();
    if (!strcmp(what, "x32"))
        return attack_x32();
    if (!strcmp(what, "tiocsti"))
        return attack_tiocsti(0, what);
    if (!strcmp(what, "tiocsti_high"))
        return attack_tiocsti(1UL << 32, what);
    if (!strcmp(what, "tioclinux"))
        return attack_tioclinux();
    if (!strcmp(what, "io_uring"))
        return attack_io_uring();
    if (!strcmp(what, "personality"))
        return attack_personality(ADDR_NO_RANDOMIZE, what);
    if (!strcmp(what, "personality_high"))
        return attack_personality(0x80000000UL | ADDR_NO_RANDOMIZE, what);
    fprintf(stderr, "attack: unknown attack %s\n", what);
    return 2;
}
