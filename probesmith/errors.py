"""Errors that users see. Each message names the problem and the fix."""


class ProbesmithError(Exception):
    """Base class of every error probesmith raises on purpose."""


class SpecError(ProbesmithError):
    """A probe spec is malformed: an unknown key, a wrong type, an invalid value."""


class SourceError(ProbesmithError):
    """A knowledge source is missing, unreadable, truncated or corrupt."""


class SchemaError(ProbesmithError):
    """A table does not conform to its declared schema."""


class ArtifactError(ProbesmithError):
    """A built artifact on disk is unreadable or does not match its manifest."""
