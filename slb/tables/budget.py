"""A time budget for reading and cleaning an uploaded table: :class:`Budget`.

Size limits (:mod:`slb.tables.limits`) bound the memory an upload can take, but not the time:
a file within every limit can still be slow to parse (many columns, many rows of unusual
text, an Excel sheet that streams far more rows than it declares).  The readers and the
cleaning therefore carry a :class:`Budget`, a deadline they check between steps and every few
thousand rows or columns while they work.  When it passes, :meth:`Budget.check` raises a
``ValueError`` that says what took too long and what to do, so that every upload ends in a
result or a clear error within :data:`DEFAULT_TIME_LIMIT` seconds (plus the moment between
two checks).

The costs of the readers grow linearly with the size of the file; the budget is the safety
net for what was not foreseen, not the usual way a file is refused.
"""

from __future__ import annotations

import time

from ._messages import _q

__all__ = ["Budget", "DEFAULT_TIME_LIMIT", "TimeLimitExceeded", "as_budget"]

#: Default number of seconds :func:`slb.tables.read.read_table` and
#: :func:`slb.tables.clean.prepare_table` may each spend on one upload.
DEFAULT_TIME_LIMIT = 8.0


class TimeLimitExceeded(ValueError):
    """The ``ValueError`` of a spent :class:`Budget` (its message says what to do).

    A subclass, so that the readers, which turn their parsers' errors into a generic message,
    can tell it apart and pass it on unchanged.

    Examples
    --------
    >>> try:
    ...     Budget(0.0, "the table").check("cleaning")
    ... except TimeLimitExceeded as error:
    ...     print(isinstance(error, ValueError), str(error).split(",")[0])
    True Cleaning 'the table' took longer than the 0 seconds allowed
    """


class Budget:
    """A deadline for the work on one uploaded file.

    Parameters
    ----------
    seconds : float or None
        Seconds allowed from now; ``None`` for no limit (the checks then cost nothing).
    name : str
        The file's name, quoted in the error message.

    Examples
    --------
    >>> from slb.tables.budget import Budget
    >>> budget = Budget(5.0, "data.csv")
    >>> budget.check("reading")  # well within the budget: nothing happens
    >>> Budget(0.0, "data.csv").check("reading")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    slb.tables.budget.TimeLimitExceeded: Reading 'data.csv' took longer than the 0 seconds allowed...
    """

    __slots__ = ("seconds", "name", "_deadline", "_start")

    def __init__(self, seconds: float | None = DEFAULT_TIME_LIMIT, name: str = "the table"):
        if seconds is not None:
            seconds = float(seconds)
            if not seconds >= 0:  # also refuses NaN
                raise ValueError(
                    f"The time limit must be a number of seconds >= 0 or None, not {seconds!r}."
                )
        self.seconds = seconds
        self.name = str(name)
        self._start = time.perf_counter()
        self._deadline = None if seconds is None else self._start + seconds

    def elapsed(self) -> float:
        """Seconds since the budget was created.

        Examples
        --------
        >>> budget = Budget(5.0)
        >>> 0.0 <= budget.elapsed() < 5.0
        True
        """
        return time.perf_counter() - self._start

    def remaining(self) -> float:
        """Seconds left (``inf`` without a limit; never negative).

        Examples
        --------
        >>> 0.0 < Budget(5.0).remaining() <= 5.0
        True
        >>> Budget(0.0).remaining(), Budget(None).remaining()
        (0.0, inf)
        """
        if self._deadline is None:
            return float("inf")
        return max(0.0, self._deadline - time.perf_counter())

    def expired(self) -> bool:
        """True once the deadline has passed.

        Examples
        --------
        >>> Budget(60.0).expired(), Budget(None).expired()
        (False, False)
        >>> import time
        >>> budget = Budget(0.0)
        >>> time.sleep(0.001)
        >>> budget.expired()
        True
        """
        return self._deadline is not None and time.perf_counter() > self._deadline

    def check(self, step: str = "reading") -> None:
        """Raise a plain-language ``ValueError`` if the deadline has passed.

        Parameters
        ----------
        step : str
            What was being done, in lower case (``"reading"``, ``"cleaning"``, ...), for the
            message.

        Raises
        ------
        TimeLimitExceeded
            (a ``ValueError``) when the time allowed has run out.

        Examples
        --------
        >>> Budget(None).check("cleaning")  # no limit: never raises
        >>> Budget(0.0, "data.csv").check("reading")
        Traceback (most recent call last):
            ...
        slb.tables.budget.TimeLimitExceeded: Reading 'data.csv' took longer than the 0 seconds ...
        """
        if self._deadline is not None and time.perf_counter() > self._deadline:
            raise TimeLimitExceeded(
                f"{step[:1].upper()}{step[1:]} {_q(self.name, 60)} took longer than the "
                f"{self.seconds:g} seconds allowed, so it was stopped. The table is probably "
                "larger or more irregular than this tool can handle quickly: upload fewer rows "
                "or columns, or save it as a plain CSV file (one header row, one row per "
                "sample, numbers without units) and upload that."
            )


def as_budget(time_limit: float | None | Budget, name: str) -> Budget:
    """``time_limit`` as a :class:`Budget` (a budget passes through unchanged).

    Parameters
    ----------
    time_limit : float, None or Budget
        Seconds allowed, ``None`` for no limit, or an existing budget to share.
    name : str
        The file's name, for the message.

    Returns
    -------
    Budget

    Examples
    --------
    >>> from slb.tables.budget import as_budget
    >>> as_budget(None, "data.csv").remaining()
    inf
    """
    if isinstance(time_limit, Budget):
        return time_limit
    return Budget(time_limit, name)
