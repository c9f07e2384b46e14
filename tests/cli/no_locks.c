/* A file system without locks (an NFS mount whose lock service cannot be reached): every
   flock, lockf and fcntl lock fails with ENOLCK. Loaded with LD_PRELOAD by test_no_file_locks. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>

int flock(int fd, int op) { errno = ENOLCK; return -1; }
int lockf(int fd, int cmd, off_t len) { errno = ENOLCK; return -1; }

static int is_lock(int cmd) {
  return cmd == F_SETLK || cmd == F_SETLKW || cmd == F_GETLK || cmd == F_OFD_SETLK
      || cmd == F_OFD_SETLKW || cmd == F_OFD_GETLK;
}

static int forward(const char *name, int fd, int cmd, void *arg) {
  int (*real)(int, int, ...) = (int (*)(int, int, ...))dlsym(RTLD_NEXT, name);
  return real(fd, cmd, arg);
}

int fcntl(int fd, int cmd, ...) {
  va_list ap; va_start(ap, cmd); void *arg = va_arg(ap, void *); va_end(ap);
  if (is_lock(cmd)) { errno = ENOLCK; return -1; }
  return forward("fcntl", fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...) {
  va_list ap; va_start(ap, cmd); void *arg = va_arg(ap, void *); va_end(ap);
  if (is_lock(cmd)) { errno = ENOLCK; return -1; }
  return forward("fcntl64", fd, cmd, arg);
}
