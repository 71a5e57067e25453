"""Java methods that log a message their callers write: ``logEnv(String msg, Logger log)`` logs
``msg + e.toString()`` and a caller passes ``"Server environment:"``.

A call whose receiver names a class (``Environment.logEnv(...)``) or none (``logEnv(...)``, ``this.x(...)``:
the calling class) passes each string-literal argument to a method known by its class, name and arity.
:func:`passed` lists them as entries of the constants mapping, under keys no Java name can have
(``"\\0call:Environment.logEnv/2:0\\0Server environment:"``, one per literal, so that callers in several
files all arrive through the tree's first-wins merge), and :class:`Forwarded` reads them back for the
parameters of a method: only a ``String`` parameter, only literals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import tree_sitter
import tree_sitter_java

from errdex.harvest.languages._shared import nodes, unescape
from errdex.harvest.languages._tree import text
from errdex.harvest.sites import Choice, Part, Text

__all__ = ["KEY", "Forwarded", "one_of", "passed"]

Node = tree_sitter.Node
_LANGUAGE = tree_sitter.Language(tree_sitter_java.language())

#: The prefix of a passed literal's key in the constants mapping (a NUL: no Java name has one).
KEY = "\0call:"
_CLASS_NODES = ("class_declaration", "enum_declaration", "interface_declaration", "record_declaration")
_FUNCTION_NODES = ("method_declaration", "constructor_declaration")


def _enclosing(node: Node, kinds: tuple[str, ...]) -> Node | None:
    parent = node.parent
    while parent is not None and parent.type not in kinds:
        parent = parent.parent
    return parent


def _class_of_call(call: Node) -> str | None:
    """The class a call's method belongs to, when the code says: ``Class.m()`` (or ``a.b.Class.m()``), or
    the calling class for ``m()`` and ``this.m()``; None for a call on an object (its type is unknown)."""
    receiver = call.child_by_field_name("object")
    if receiver is None or receiver.type == "this":
        owner = _enclosing(call, _CLASS_NODES)
        return text(owner.child_by_field_name("name")) if owner is not None else None
    if receiver.type not in ("identifier", "field_access"):
        return None
    name = text(receiver).rsplit(".", 1)[-1]
    # a class name: capitalized, not a CONSTANT such as LOG
    return name if name[:1].isupper() and not name.isupper() else None


def _signature(owner: str, method: str, arity: int, index: int) -> str:
    return f"{KEY}{owner}.{method}/{arity}:{index}\0"


def passed(root: Node) -> dict[str, str]:
    """Every string literal a file's calls pass to a method of a named class, as constants entries."""
    found: dict[str, str] = {}
    for call in nodes(_LANGUAGE, root, ("method_invocation",)):
        arguments = call.child_by_field_name("arguments")
        if arguments is None:
            continue
        args = [child for child in arguments.named_children if child.type != "comment"]
        literals = [(index, arg) for index, arg in enumerate(args) if arg.type == "string_literal"]
        if not literals:
            continue
        owner = _class_of_call(call)
        if owner is None:
            continue
        method = text(call.child_by_field_name("name"))
        for index, arg in literals:
            value = unescape(text(arg)[1:-1])
            found[_signature(owner, method, len(args), index) + value] = value
    return found


class Forwarded:
    """The literals callers pass for a method's parameters, read from a constants mapping (the tree's, and
    the file's own calls) once, when the first parameter is asked for."""

    def __init__(self, constants: Mapping[str, str], own: Mapping[str, str]) -> None:
        self._sources = (own, constants)
        self._table: dict[str, list[str]] | None = None

    def _read(self) -> dict[str, list[str]]:
        table: dict[str, list[str]] = {}
        for source in self._sources:
            for key, value in source.items():
                if key.startswith(KEY):
                    signature = key[: key.index("\0", len(KEY)) + 1]
                    if value not in table.setdefault(signature, []):
                        table[signature].append(value)
        return table

    def literals(self, identifier: Node) -> list[str]:
        """The literals callers pass for the parameter ``identifier`` names (a ``String`` parameter of the
        enclosing method), sorted; [] when it names none or no caller passes a literal."""
        method = _enclosing(identifier, (*_FUNCTION_NODES, "lambda_expression", "class_body"))
        if method is None or method.type != "method_declaration":
            return []
        parameters = method.child_by_field_name("parameters")
        if parameters is None or any(p.type == "spread_parameter" for p in parameters.named_children):
            return []
        formals = [p for p in parameters.named_children if p.type == "formal_parameter"]
        name = text(identifier)
        index = next((i for i, p in enumerate(formals) if text(p.child_by_field_name("name")) == name), None)
        if index is None or text(formals[index].child_by_field_name("type")) != "String":
            return []
        owner = _enclosing(method, _CLASS_NODES)
        if owner is None:
            return []
        if self._table is None:
            self._table = self._read()
        signature = _signature(text(owner.child_by_field_name("name")), text(method.child_by_field_name("name")),
                               len(formals), index)
        return sorted(self._table.get(signature, []))


def _shared_start(texts: Sequence[str]) -> str:
    shortest = min(texts, key=len)
    size = next((i for i, char in enumerate(shortest) if any(t[i] != char for t in texts)), len(shortest))
    return shortest[:size]


def one_of(literals: Sequence[str]) -> list[Part]:
    """Literals as parts: one Text, or the text they all share around a Choice of where they differ
    (``Client environment:`` and ``Server environment:``: Choice(Client, Server) then `` environment:``), so
    the message keeps literal text; empty Texts are dropped by ``finish``."""
    if len(literals) == 1:
        return [Text(literals[0])]
    head = _shared_start(literals)
    rests = [literal[len(head):] for literal in literals]
    tail = _shared_start([rest[::-1] for rest in rests])[::-1]
    middles = tuple((Text(rest[: len(rest) - len(tail)]),) if len(rest) > len(tail) else () for rest in rests)
    return [Text(head), Choice(middles), Text(tail)]
