"""Java methods that log a message their callers write: ``logEnv(String msg, Logger log)`` logs
``msg + e.toString()`` and a caller passes ``"Server environment:"``.

A call whose receiver names a class (``Environment.logEnv(...)``) or none (``logEnv(...)``, ``this.x(...)``:
the calling class) passes each string-literal argument to a method known by its class, name and arity.
:func:`passed` lists them by :class:`~errdex.harvest.languages.Parameter`
(``Environment.logEnv/2``, parameter 0: ``["Server environment:"]``), the ``passed`` of the file's
:class:`~errdex.harvest.languages.TreeFacts` (the first pass gathers every caller's), and :class:`Forwarded`
reads them for the parameters of a method: only a ``String`` parameter, only literals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain

import tree_sitter
import tree_sitter_java

from errdex.harvest.languages import Parameter
from errdex.harvest.languages._shared import nodes, unescape
from errdex.harvest.languages._tree import text
from errdex.harvest.sites import Choice, Part, Text

__all__ = ["Forwarded", "one_of", "passed"]

Node = tree_sitter.Node
_LANGUAGE = tree_sitter.Language(tree_sitter_java.language())

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


def passed(root: Node) -> dict[Parameter, list[str]]:
    """Every string literal a file's calls pass to a method of a named class, by parameter (each once, in the
    order of the calls)."""
    found: dict[Parameter, list[str]] = {}
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
            known = found.setdefault(Parameter(owner, method, len(args), index), [])
            if value not in known:
                known.append(value)
    return found


class Forwarded:
    """The literals callers pass for a method's parameters: the tree's (what the first pass learned) and the
    file's own calls'."""

    def __init__(self, tree: Mapping[Parameter, list[str]], own: Mapping[Parameter, list[str]]) -> None:
        self._sources = (own, tree)

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
        parameter = Parameter(text(owner.child_by_field_name("name")), text(method.child_by_field_name("name")),
                              len(formals), index)
        return sorted(set(chain.from_iterable(source.get(parameter, ()) for source in self._sources)))


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
