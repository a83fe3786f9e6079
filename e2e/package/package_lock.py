"""One dpkg-installing test at a time on a machine: several checkouts may run their suites at once, and a
gatehouse package, /etc/gatehouse and /var/lib/gatehouse exist once per machine."""
import contextlib
import fcntl


@contextlib.contextmanager
def machine_package_lock(path="/tmp/gatehouse-package-tests.lock"):
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
