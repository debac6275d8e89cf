"""Where the result-file tools write, with the rules the driver keeps (src/atomic_out.c), and how
they end on a signal. Every tool writes its files through write_file() and starts with
catch_signals():

- never over one of the tool's inputs, --force or not (export.py r.json -o r.json);
- never over an existing smembench result file without --force;
- only a regular file is replaced; a directory, socket or FIFO is refused, and so is a device other
  than /dev/null (written into, never replaced); a tool that writes a stream (export) may write into
  a FIFO or a character device that exists, never replacing it;
- symbolic links as the driver takes them: a link to nothing is refused, a link to a regular file
  has that file replaced (the link stays), a link to anything else is refused as that thing is;
- the file appears whole or not at all: a hidden temporary file in the same directory, flushed and
  synced, then renamed over the name; its mode is 0666 less the umask, as any other tool's file;
- SIGINT, SIGTERM and SIGHUP (those the parent did not ignore) remove the temporary file and end the
  tool with one line and status 128 + the signal (a second one ends it at once); nothing hidden is
  ever left behind.

stdout is the tool's other output, checked as the driver checks it: before the run (closed, open only
for reading, /dev/full, a file already at the ulimit -f size: one line and status 1, before any file is
written), then every write (a full disk or the file size limit: one line, status 1; a reader that
stops early, | head: quiet, the status as it was). Names are written as the file system has them:
bytes that are not UTF-8 go to stdout as they are, and into a written text file as \\xNN.
"""
import fcntl
import os
import re
import resource
import signal
import stat
import sys
import time

# a result file starts with its schema (the driver writes it first; a reformatted one within 4 KiB)
_RESULT_HEAD = re.compile(rb'"schema"\s*:\s*"smembench/')
_SIGNALS = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM", signal.SIGHUP: "SIGHUP"}
_temps = set()         # temporary files that exist now: removed by the signal handler
_pending = None        # the first signal caught: no temporary file is made after it


class OutputError(Exception):
    """A file that cannot or must not be written: one line, status 2."""


class StdoutError(Exception):
    """stdout cannot take the tool's output: one line, status 1 (the driver's)."""


class Interrupted(BaseException):
    """A signal ended the tool (a BaseException, like KeyboardInterrupt, so that no handler of
    ordinary errors takes it); status 128 + signo."""

    def __init__(self, signo):
        super().__init__(signo)
        self.signo = signo

    @property
    def status(self):
        return 128 + self.signo

    def __str__(self):
        return f"interrupted by {_SIGNALS.get(self.signo, f'signal {self.signo}')}"


def _remove_temps():
    for t in list(_temps):
        try:
            os.unlink(t)
        except OSError:
            pass
        _temps.discard(t)


def _on_signal(signo, frame):
    # the temporary files go first, then a second signal may end the tool at once (as the driver's
    # second one does): the other order let a second SIGTERM (timeout sends one to the process and one
    # to its group) kill the tool between the two, with the file left behind. The signal is kept, so
    # that an Interrupted raised where Python swallows it (a finalizer, a weakref callback during
    # matplotlib's drawing) still ends the tool at its next write or at its end, never after making a
    # temporary file that only SIG_DFL would meet.
    global _pending
    _remove_temps()
    if _pending is None:
        _pending = signo
    for other in _SIGNALS:
        if signal.getsignal(other) is _on_signal:
            signal.signal(other, signal.SIG_DFL)
    raise Interrupted(signo)


def worker_signals():
    """In a worker process a tool forked (trend's figure pool): SIGTERM (the pool ended by its
    parent) removes the worker's temporary files and ends it at once, silently (the tool's handler
    raises, and the pool's worker would print that as a traceback); SIGINT is the parent's to act on."""
    def end(signo, frame):
        _remove_temps()
        os._exit(128 + signo)
    signal.signal(signal.SIGTERM, end)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _check_pending():
    if _pending is not None:
        _remove_temps()
        raise Interrupted(_pending)


def _unraisable(u, default=sys.unraisablehook):
    # an Interrupted in a finalizer is no traceback: the tool ends with it at its next write or end
    if not isinstance(u.exc_value, Interrupted):
        default(u)


def catch_signals():
    """SIGINT, SIGTERM and SIGHUP raise Interrupted (Ctrl-C included), removing any temporary file
    first; a signal the parent set to be ignored (nohup, a background job) stays ignored."""
    sys.unraisablehook = _unraisable
    for signo in _SIGNALS:
        if signal.getsignal(signo) == signal.SIG_IGN:
            continue
        signal.signal(signo, _on_signal)


def _umask():
    m = os.umask(0)
    os.umask(m)
    return m


def _is_result_file(path):
    # not waiting (O_NONBLOCK), and only a regular file read: a FIFO put in its place since the
    # caller's stat would hold the tool for ever
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode) and bool(_RESULT_HEAD.search(os.pread(fd, 4096, 0)))
    except OSError:
        return False
    finally:
        os.close(fd)


def _kind(mode):
    for test, name in ((stat.S_ISDIR, "directory"), (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket"), (stat.S_ISLNK, "symbolic link")):
        if test(mode):
            return name
    return "special file"


def _same(st, inputs):
    for p in inputs:
        try:
            i = os.stat(p)
        except OSError:
            continue
        if (i.st_dev, i.st_ino) == (st.st_dev, st.st_ino):
            return p
    return None


def target(path, inputs=(), force=False, stream=False):
    """Where path leads, checked before anything is written: ("file", real path to replace or
    create) or ("into", path of a device or FIFO written into); OutputError otherwise."""
    if not path or path.endswith("/"):
        raise OutputError(f'invalid output path "{path}"; expected a file name')
    d = os.path.dirname(path) or "."
    if not os.path.isdir(d):
        if not os.path.lexists(d) or os.path.islink(d) and not os.path.exists(d):
            raise OutputError(f'cannot write "{path}": directory "{d}" does not exist')
        raise OutputError(f'cannot write "{path}": "{d}" is not a directory')
    try:
        lst = os.lstat(path)
    except FileNotFoundError:
        return "file", path
    except OSError as e:
        raise OutputError(f'cannot write "{path}": {e.strerror}') from None
    link = stat.S_ISLNK(lst.st_mode)
    try:
        st = os.stat(path) if link else lst
    except OSError:
        raise OutputError(f'cannot write "{path}": it is a symbolic link to nothing; give a file name') from None
    how = "symbolic link to a " if link else ""
    same = _same(st, inputs)
    if same is not None:
        raise OutputError(f'cannot write "{path}": it is {"a link to " if link else ""}the input "{same}"; '
                          "choose another output")
    if stat.S_ISREG(st.st_mode):
        if not force and _is_result_file(path):
            raise OutputError(f'"{path}" is {"a link to " if link else ""}a smembench result file; choose another '
                              "output or pass --force to replace it")
        return "file", os.path.realpath(path) if link else path
    null = os.stat(os.devnull)
    if stat.S_ISCHR(st.st_mode) and st.st_rdev == null.st_rdev or \
            stream and (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        return "into", path
    raise OutputError(f'cannot write "{path}": it is a {how}{_kind(st.st_mode)}'
                      f'{"" if stat.S_ISDIR(st.st_mode) else ", not a regular file"}; give a file name')


def output_dir(path, what="the output"):
    """Makes the directory a tool writes its files into (-o DIR), or OutputError in one line: a
    symbolic link to nothing, a path through a regular file, a read-only file system, no permission
    (os.makedirs's own errors, as a user reads them)."""
    if not path:
        raise OutputError('invalid output directory ""; expected a directory name')
    if os.path.islink(path) and not os.path.exists(path):
        raise OutputError(f"cannot use {path} for {what}: it is a symbolic link to nothing; give a directory")
    if os.path.exists(path) and not os.path.isdir(path):
        raise OutputError(f"{path} is not a directory; -o takes a directory for {what}")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        up = os.path.dirname(os.path.normpath(path))
        while up and not os.path.lexists(up):
            up = os.path.dirname(up)
        if e.errno in (20, 17) and up and not os.path.isdir(up):      # ENOTDIR, EEXIST
            raise OutputError(f'cannot create the output directory {path}: "{up}" is not a directory') from None
        raise OutputError(f"cannot create the output directory {path}: {e.strerror or e}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write to the output directory {path}: permission denied")
    return path


def write_file(path, render, inputs=(), force=False, stream=False):
    """Writes what render(binary file) writes to path by the rules above; OutputError (one line)
    when it cannot or must not. Returns the path written."""
    kind, real = target(path, inputs, force, stream)
    if kind == "into":
        try:
            with open(real, "wb") as f:
                render(f)
        except OSError as e:
            raise OutputError(f'cannot write "{path}": {e.strerror or e}') from None
        return path
    d = os.path.dirname(real) or "."
    tmp = None
    try:
        fd, tmp = _create_temp(d)
        with os.fdopen(fd, "wb") as f:
            render(f)
            f.flush()
            _test_delay()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        # checked again now: a name that became a directory, a link or a result file meanwhile stays
        kind2, real2 = target(path, inputs, force, stream)
        if (kind2, real2) != (kind, real):
            raise OutputError(f'cannot write "{path}": it changed while the output was made')
        _check_pending()
        os.replace(tmp, real)
        _temps.discard(tmp)
        tmp = None
    except OSError as e:
        _check_pending()      # the handler removed the file under a write that went on
        raise OutputError(f'cannot write "{path}": {e.strerror or e}') from None
    finally:
        if tmp is not None:
            # removed before it is forgotten: a signal between the two finds it in _temps
            try:
                os.unlink(tmp)
            except OSError:
                pass
            _temps.discard(tmp)
    return path


def _test_delay():
    """Slow motion for the signal tests (tests/scripts/test_scripts.py), as the driver's test build
    has: SMEM_TEST_WRITE_DELAY_MS holds each written file in its temporary for that long, after
    saying so on stderr."""
    ms = os.environ.get("SMEM_TEST_WRITE_DELAY_MS")
    if ms:
        print("smembench-test: write", file=sys.stderr, flush=True)
        time.sleep(int(ms) / 1000)


def _create_temp(d):
    """A hidden temporary file in d, known to the signal handler before it exists."""
    for _ in range(100):
        name = os.path.join(d, f".smembench-{os.urandom(4).hex()}.tmp")
        _temps.add(name)
        _check_pending()
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600), name
        except FileExistsError:
            _temps.discard(name)
    raise OutputError(f'cannot make a temporary file in "{d}"')


def cpus():
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def in_two(make, items, what):
    """[make(x) for x in items], every second one made by a forked copy of this process where two
    CPUs are free and there are three or more (drawing figures is most of plot's and report's time;
    the copy has the same objects, so it makes the same bytes). What the copy made comes back on a
    pipe; an OutputError of the copy's is raised here as its own, any other failure as a
    RuntimeError naming what it made; the copy never outlives this process (a signal here ends it,
    and it removes its temporary files as this one does) and ends silently where this one is gone."""
    if len(items) < 3 or cpus() < 2 or not hasattr(os, "fork"):
        return [make(x) for x in items]
    import pickle
    r, w = os.pipe()
    sys.stdout.flush(), sys.stderr.flush()
    child = os.fork()
    if child == 0:      # the copy: the odd items; what it made or why it failed goes back on the pipe
        os.close(r)
        status, got = 0, None
        try:
            got = ("ok", [make(x) for x in items[1::2]])
        except OutputError as e:
            status, got = 2, ("output", str(e))
        except BaseException as e:     # noqa: B036 - a signal or a bug: said by the status, made nothing
            signo = e.args[0] if isinstance(e, Interrupted) and e.args else 0
            status, got = (128 + signo) if signo else 70, ("error", repr(e))
        finally:
            try:     # this process may be gone, its end of the pipe closed: the copy ends all the same
                with os.fdopen(w, "wb") as f:
                    pickle.dump(got, f)
            except BaseException:     # noqa: B036 - a broken pipe or a second signal: nothing to tell
                pass
            os._exit(status)
    os.close(w)
    done = False
    try:
        mine = [make(x) for x in items[0::2]]
        with os.fdopen(r, "rb") as f:
            r = None
            got = pickle.load(f)
        os.waitpid(child, 0)
        done = True
    finally:
        if r is not None:
            os.close(r)
        if not done:    # this process fails or was signalled: the copy ends too
            try:
                os.kill(child, signal.SIGTERM)
                os.waitpid(child, 0)
            except OSError:
                pass
    if got is None or got[0] == "error":
        raise RuntimeError(f"the process making half {what} failed: {got and got[1]}")
    if got[0] == "output":
        raise OutputError(got[1])
    out = [None] * len(items)
    out[0::2], out[1::2] = mine, got[1]
    return out


def printable(text):
    """A text that any UTF-8 output takes: a name's bytes that are not UTF-8 (the surrogate escapes
    os.fsdecode gives them) as \\xNN, any other lone surrogate (a JSON "\\ud800") as \\uNNNN."""
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def shown(path):
    """A file name as a message, a label, a figure's text or a page shows it, on one line: bytes that
    are not UTF-8 as \\xNN (printable), control characters (a newline, a tab, an escape) as \\n,
    \\t, \\x1b."""
    text = printable(os.fsdecode(path) if isinstance(path, bytes) else os.fspath(path))
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def encode_text(text):
    """A text as UTF-8 for a written file (printable), so that the file is UTF-8 and a name's byte
    still shows."""
    return printable(text).encode("utf-8")


def write_text(path, text, inputs=(), force=False, stream=False):
    """write_file of a text, UTF-8 (encode_text)."""
    return write_file(path, lambda f: f.write(encode_text(text)), inputs, force, stream)


def closed_stdout():
    """After a BrokenPipeError on stdout (| head): stdout on /dev/null, so that the flush at exit
    raises nothing more."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError, AttributeError):
        pass


def _stdout_fd():
    """stdout's descriptor; None where stdout is no file (a test's StringIO); StdoutError where it
    is closed (Python sets sys.stdout to None for a descriptor closed at start, >&-)."""
    if sys.stdout is None:
        raise StdoutError("cannot write the results to stdout: it is closed")
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):
        return None
    try:
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    except OSError:
        raise StdoutError("cannot write the results to stdout: it is closed") from None
    if flags & os.O_ACCMODE == os.O_RDONLY:
        raise StdoutError("cannot write the results to stdout: it is open only for reading")
    return fd


def check_stdout():
    """Before the run: stdout closed, open only for reading, /dev/full, or a file already at the
    ulimit -f size is StdoutError (one line, status 1) before anything is read or written."""
    fd = _stdout_fd()
    if fd is None:
        return
    st = os.fstat(fd)
    try:
        full = os.stat("/dev/full")
    except OSError:
        full = None
    if stat.S_ISCHR(st.st_mode) and full is not None and st.st_rdev == full.st_rdev:
        raise StdoutError(f"cannot write the results to stdout: {os.strerror(28)}")
    if stat.S_ISREG(st.st_mode):
        soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
        if soft != resource.RLIM_INFINITY:
            try:
                at = st.st_size if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_APPEND else os.lseek(fd, 0, os.SEEK_CUR)
            except OSError:
                at = 0
            if at >= soft:
                raise StdoutError(f"cannot write the results to stdout: {os.strerror(27)} (ulimit -f)")


def write_stdout(text, what="the results"):
    """Writes text on stdout, every byte or StdoutError (one line, status 1): os.write until all is
    written, since Python's buffered stdout drops what a short write leaves (a file at its ulimit -f
    size: one write of 1024 bytes and no error). A reader that stops early (| head) is
    BrokenPipeError, for the caller. Names keep their bytes (surrogateescape)."""
    fd = _stdout_fd()
    if fd is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    enc = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        data = text.encode(enc, "surrogateescape")
    except UnicodeEncodeError:
        data = printable(text).encode(enc, "backslashreplace")
    data = memoryview(data)
    try:
        sys.stdout.flush()
        while data:
            n = os.write(fd, data)
            data = data[n:]
    except BrokenPipeError:
        raise
    except OSError as e:
        raise StdoutError(f"cannot write {what} to stdout: {e.strerror or e}") from None


def run_tool(body, errors=(), special=(), on_pipe=None, prog="smembench", stdout=True):
    """Runs a tool's body() -> exit status with the failures every result-file tool shares, each one
    line on stderr: the usage errors (the exception types in errors, and OutputError) 2, --help 0 and
    a bad option 2, special [(exception type, status, line or None)] as given, stdout that cannot be
    written 1 (checked before body where stdout is True; a tool that writes stdout only for some
    options, export, calls check_stdout itself), a closed pipe (| head) quiet with on_pipe where the
    tool gives it one, else the status as it was, out of memory 2, a signal 128 + N (SIGINT 130),
    anything else an internal error 70 (a bug)."""
    catch_signals()

    def say(text, status):
        if text is not None:
            print(printable(f"{prog}: {text}"), file=sys.stderr)
        return status
    try:
        if stdout:
            check_stdout()
        status = body()
        if _pending is not None:       # an Interrupted that something swallowed
            raise Interrupted(_pending)
        if sys.stdout is not None:     # the final flush, checked (a print the tool made)
            try:
                sys.stdout.flush()
            except BrokenPipeError:
                closed_stdout()
            except OSError as e:
                raise StdoutError(f"cannot write the results to stdout: {e.strerror or e}") from None
        return status
    except SystemExit as e:          # --help, or argparse's usage error
        return 0 if not e.code else 2
    except Interrupted as e:
        return say(e, e.status)
    except KeyboardInterrupt:        # SIGINT before the handler was set
        return say("interrupted by SIGINT", 130)
    except StdoutError as e:
        return say(e, 1)
    except Exception as e:
        if on_pipe is not None and isinstance(e, BrokenPipeError):
            closed_stdout()
            return on_pipe
        for kind, status, line in special:
            if isinstance(e, kind):
                return say(line(e) if callable(line) else line, status)
        if isinstance(e, tuple(errors) + (OutputError,)):
            return say(e, 2)
        if isinstance(e, MemoryError):
            return say("out of memory reading the result files", 2)
        return say(f"internal error ({type(e).__name__}: {str(e)[:200]}); please report it with the input files", 70)


def emit(lines, status, what, prog="smembench"):
    """Writes a tool's output lines on stdout (write_stdout) and returns its status: a reader that
    stops early (| head) leaves the status as it is; stdout that cannot take them is StdoutError
    (one line, status 1, in run_tool)."""
    try:
        write_stdout("\n".join(lines) + "\n", what)
    except BrokenPipeError:
        closed_stdout()
    return status
