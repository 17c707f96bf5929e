"""Tables declared as classes, built as SQLAlchemy Core ``Table`` objects without the ORM.

The product's models (``store.models``) and ours (``store.ours``) read like SQLAlchemy's
declarative classes (``Mapped[...]`` annotations, ``mapped_column(...)``), but the desk never
maps rows to objects: every query uses ``Model.__table__`` and its columns. Importing
``sqlalchemy.orm`` only for the declarations cost every command and the window's first paint
about a tenth of a second, so this module builds the same tables with the same rules:

- the column is named after the attribute unless ``mapped_column`` is given a name first;
- without a type, the annotation gives it (``str`` Text-like ``String``, ``int`` ``Integer``,
  ``float`` ``Float``, ``bytes`` ``LargeBinary``);
- without ``nullable=``, a primary key is NOT NULL and any other column may be NULL exactly
  when its annotation says ``| None`` (``Optional``);
- ``__table_args__`` is a tuple of constraints and indexes, optionally ending with a dict of
  table options (or just that dict).

Each direct subclass of ``TableBase`` without a ``__tablename__`` is a base with its own
``MetaData``; its table classes share it (foreign keys resolve within it).
"""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar

from sqlalchemy import Column, Float, Integer, LargeBinary, MetaData, String, Table
from sqlalchemy.types import TypeEngine

T = TypeVar("T")

_TYPES: dict[str, type[TypeEngine[Any]]] = {"str": String, "int": Integer, "float": Float, "bytes": LargeBinary}


class Mapped(Generic[T]):
    """An annotation only: ``Mapped[str | None]`` names the column's Python type and whether it may be NULL."""


class _Spec:
    __slots__ = ("args", "kw")

    def __init__(self, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
        self.args, self.kw = args, kw


def mapped_column(*args: Any, **kw: Any) -> Any:
    """A column of a table class: ``Column``'s arguments, completed from the annotation."""
    return _Spec(args, kw)


def _is_type(value: Any) -> bool:
    return isinstance(value, TypeEngine) or (isinstance(value, type) and issubclass(value, TypeEngine))


def _inner(note: str) -> str:
    return note[note.index("[") + 1:note.rindex("]")] if "[" in note else note


def _column(key: str, note: str, spec: _Spec) -> Column[Any]:
    args, kw = list(spec.args), dict(spec.kw)
    name = args.pop(0) if args and isinstance(args[0], str) else key
    if not any(_is_type(a) for a in args):
        base = _inner(note).split("|")[0].strip()
        if base not in _TYPES:
            raise TypeError(f"column {key!r}: give a type for the annotation {note!r}")
        args.insert(0, _TYPES[base]())
    if "nullable" not in kw and not kw.get("primary_key"):
        kw["nullable"] = "None" in note or "Optional" in note
    return Column(name, *args, key=key, **kw)


class TableBase:
    """The root of the table classes (see the module's docstring)."""

    metadata: ClassVar[MetaData]
    __table__: ClassVar[Table]
    __tablename__: ClassVar[str]

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if "__tablename__" not in cls.__dict__:
            cls.metadata = MetaData()  # a new base: its tables share this metadata
            return
        notes = cls.__dict__.get("__annotations__", {})
        columns = [_column(key, str(note), spec) for key, note in notes.items()
                   if isinstance(spec := cls.__dict__.get(key), _Spec)]
        extra = cls.__dict__.get("__table_args__", ())
        options: dict[str, Any] = {}
        if isinstance(extra, dict):
            extra, options = (), extra
        elif extra and isinstance(extra[-1], dict):
            extra, options = extra[:-1], extra[-1]
        cls.__table__ = Table(cls.__tablename__, cls.metadata, *columns, *extra, **options)
        for column in cls.__table__.columns:
            setattr(cls, column.key, column)

    @classmethod
    def __clause_element__(cls) -> Table:
        """``select(Model)`` selects from its table, as it did with declarative classes."""
        return cls.__table__
