"""Errors that users see. Each message names the problem and the fix."""


class ProbesmithError(Exception):
    """Base class of every error probesmith raises on purpose.

    ``exit_code`` is what the command line exits with: 1 for a problem with data, sources or
    the machine; 2 (:class:`UsageError`) for a problem with what was asked.
    """

    exit_code = 1


class UsageError(ProbesmithError):
    """What was asked cannot be done as asked: a bad argument, option or output path."""

    exit_code = 2


class OutputError(UsageError):
    """An output path is refused before any work: it holds something probesmith must not replace."""


class SpecError(UsageError):
    """A probe spec is malformed: an unknown key, a wrong type, an invalid value."""


class SourceError(ProbesmithError):
    """A knowledge source is missing, unreadable, truncated or corrupt."""


class SchemaError(ProbesmithError):
    """A table does not conform to its declared schema."""


class ArtifactError(ProbesmithError):
    """A built artifact on disk is unreadable or does not match its manifest."""
