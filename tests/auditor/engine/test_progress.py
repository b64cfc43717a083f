import io

from auditor.engine.progress import Progress


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_draws_on_a_terminal_only():
    tty = _Tty()
    p = Progress(1000, stream=tty, min_interval=0)
    p.update(500)
    text = tty.getvalue()
    assert "50%" in text and "samples" in text and "<" in text  # tqdm's "elapsed<remaining"
    p.close()
    pipe = io.StringIO()
    q = Progress(1000, stream=pipe)
    q.update(1000)
    q.close()
    assert pipe.getvalue() == ""  # not a terminal: silent


def test_progress_can_be_switched_off():
    tty = _Tty()
    p = Progress(10, stream=tty, enabled=False)
    p.update(10)
    p.close()
    assert tty.getvalue() == ""
