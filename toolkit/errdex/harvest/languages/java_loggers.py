"""Which Java expressions are loggers, across the tree, and the class that owns a statement.

A logger is a field, local or parameter declared with a logger type (``Logger``, ``Log``...) or set from a
logger factory (``LoggerFactory.getLogger``, ``LogFactory.getLog``, ``Logger.getLogger``,
``LogManager.getLogger``) whatever its name; a field of one of the usual names (``LOG``, ``logger``...); a
method that returns a logger (``getLogger()``, ``LOG()``). The first pass learns them per class
(:func:`survey`: ``NameNode.stateChangeLog``, ``Outer.Inner.LOG``, ``Base.log()``) with each class's
superclass, so that in any file ``NameNode.stateChangeLog.info(...)``, ``org.foo.Bar.LOG.error(...)`` and a
subclass's bare ``LOG.warn(...)`` of a field it inherits are log calls (:class:`Loggers`).

:func:`binary_name` is the class the JVM (and so log4j's ``%C``) names for a statement: ``Outer$Inner``,
``Outer$1`` for the first anonymous class of ``Outer``, ``Outer$1Local`` for a class declared in a method.
"""

from __future__ import annotations

from collections.abc import Iterator

import tree_sitter
import tree_sitter_java

from errdex.harvest.languages import TreeFacts
from errdex.harvest.languages._shared import nodes
from errdex.harvest.languages._tree import text

__all__ = ["LOGGER_NAMES", "Loggers", "binary_name", "survey"]

Node = tree_sitter.Node
_LANGUAGE = tree_sitter.Language(tree_sitter_java.language())

#: Field names that are loggers wherever they are declared.
LOGGER_NAMES = frozenset({"LOG", "log", "logger", "LOGGER", "Log", "_log", "_logger", "LOGGER_"})
_LOGGER_TYPES = frozenset({"Logger", "Log", "XLogger", "ExtendedLogger"})
#: Classes whose ``getLogger``/``getLog`` make a logger.
_FACTORIES = frozenset({"LoggerFactory", "LogFactory", "Logger", "LogManager", "XLoggerFactory"})
#: Methods that return a logger by their name alone (``getLogger().warn(...)``).
GETTERS = frozenset({"getLogger", "getLog", "logger", "log", "getLOG", "LOG"})
_CLASS_NODES = ("class_declaration", "enum_declaration", "interface_declaration", "record_declaration")
_DECLARATIONS = ("field_declaration", "local_variable_declaration", "formal_parameter")


def _logger_type(declaration: Node) -> bool:
    return text(declaration.child_by_field_name("type")).rsplit(".", 1)[-1].split("<", 1)[0] in _LOGGER_TYPES


def _from_factory(value: Node | None) -> bool:
    """``LoggerFactory.getLogger(X.class)``, ``LogFactory.getLog("name")``, ``Logger.getLogger(...)``."""
    if value is None or value.type != "method_invocation":
        return False
    owner = text(value.child_by_field_name("object")).rsplit(".", 1)[-1]
    return owner in _FACTORIES and text(value.child_by_field_name("name")) in ("getLogger", "getLog")


def _classes(node: Node) -> Iterator[Node]:
    """The class declarations around ``node``, innermost first."""
    parent = node.parent
    while parent is not None:
        if parent.type in _CLASS_NODES:
            yield parent
        parent = parent.parent


def _qualified(declaration: Node) -> str:
    """``Outer.Inner`` of the classes around a declaration (named classes only)."""
    return ".".join(reversed([text(c.child_by_field_name("name")) for c in _classes(declaration)]))


def _package(root: Node) -> str:
    declaration = next((c for c in root.named_children if c.type == "package_declaration"), None)
    if declaration is None:
        return ""
    name = next((c for c in declaration.named_children if c.type in ("scoped_identifier", "identifier")), None)
    return text(name)


def survey(root: Node) -> TreeFacts:
    """The file's logger fields and logger methods by class (``Bar.LOG``, ``Outer.Inner.LOG``,
    ``org.foo.Bar.LOG``, ``Base.log()``), and each class's superclass."""
    facts = TreeFacts()
    package = _package(root)

    def learn(owner: str, member: str) -> None:
        facts.loggers.add(f"{owner}.{member}")
        if package:
            facts.loggers.add(f"{package}.{owner}.{member}")

    for field in nodes(_LANGUAGE, root, ("field_declaration",)):
        owner = _qualified(field)
        typed = _logger_type(field)
        for declarator in field.children_by_field_name("declarator"):
            name = text(declarator.child_by_field_name("name"))
            if owner and (typed or _from_factory(declarator.child_by_field_name("value"))):
                learn(owner, name)
    for method in nodes(_LANGUAGE, root, ("method_declaration",)):
        owner = _qualified(method)
        if owner and _logger_type(method):
            learn(owner, text(method.child_by_field_name("name")) + "()")
    for declaration in nodes(_LANGUAGE, root, ("class_declaration",)):
        parent = declaration.child_by_field_name("superclass")
        if parent is not None and parent.named_child_count:
            name = text(parent.named_children[0]).split("<", 1)[0].rsplit(".", 1)[-1]
            facts.parents[text(declaration.child_by_field_name("name"))] = name
    return facts


def _own(root: Node) -> set[str]:
    """The names of the file's fields, locals and parameters that are loggers by type or by factory."""
    names: set[str] = set()
    for declaration in nodes(_LANGUAGE, root, _DECLARATIONS):  # one query for the three kinds
        typed = _logger_type(declaration)
        if declaration.type == "formal_parameter":
            if typed:
                names.add(text(declaration.child_by_field_name("name")))
            continue
        names.update(text(d.child_by_field_name("name")) for d in declaration.children_by_field_name("declarator")
                     if typed or _from_factory(d.child_by_field_name("value")))
    return names


class Loggers:
    """Whether a call's receiver is a logger, in one file, with what the tree taught (:func:`survey`)."""

    def __init__(self, root: Node, facts: TreeFacts) -> None:
        self._tree = facts.loggers
        self._parents = facts.parents
        self._names = LOGGER_NAMES | _own(root)
        self._inherited: dict[str, frozenset[str]] = {}

    def _of_ancestors(self, owner: str) -> frozenset[str]:
        """The members (``LOG``, ``log()``) a class inherits from its superclasses of the tree."""
        if owner not in self._inherited:
            members: set[str] = set()
            seen = {owner}
            parent = self._parents.get(owner)
            while parent is not None and parent not in seen:
                seen.add(parent)
                prefix = parent + "."
                members.update(key[len(prefix):] for key in self._tree if key.startswith(prefix)
                               and "." not in key[len(prefix):])
                parent = self._parents.get(parent)
            self._inherited[owner] = frozenset(members)
        return self._inherited[owner]

    def _known(self, dotted: str) -> bool:
        """``Bar.LOG``, ``a.b.Bar.LOG``, ``Outer.Inner.LOG``: any two or more trailing names the tree knows."""
        names = dotted.split(".")
        return any(".".join(names[i:]) in self._tree for i in range(len(names) - 1))

    def receiver(self, node: Node | None) -> bool:
        """Whether ``node`` (a call's object) is a logger."""
        if node is None:
            return False
        if node.type == "method_invocation":
            return self._getter(node)
        if node.type not in ("identifier", "field_access"):
            return False
        name = text(node)
        for prefix in ("this.", "super."):
            name = name.removeprefix(prefix)
        last = name.rsplit(".", 1)[-1]
        if name in self._names or ("." in name and last in LOGGER_NAMES) or self._known(name):
            return True
        return "." not in name and any(name in self._of_ancestors(text(c.child_by_field_name("name")))
                                       for c in _classes(node))

    def _getter(self, call: Node) -> bool:
        """``getLogger().warn``, ``LOG().warn``, ``LoggerFactory.getLogger(X.class).info``, ``Base.log()``."""
        name = text(call.child_by_field_name("name"))
        if name in GETTERS:
            return True
        owner = call.child_by_field_name("object")
        qualified = f"{text(owner).removeprefix('this.').removeprefix('super.')}.{name}()" if owner is not None \
            and owner.type not in ("this", "super") else f"{name}()"
        if "." in qualified and self._known(qualified):
            return True
        return "." not in qualified and any(qualified in self._of_ancestors(text(c.child_by_field_name("name")))
                                            or self._known(f"{text(c.child_by_field_name('name'))}.{qualified}")
                                            for c in _classes(call))


def binary_name(node: Node) -> str:
    """The JVM's name of the class whose code ``node`` is: ``Outer$Inner``; an anonymous class ``Outer$1`` (its
    ordinal among the anonymous classes of its enclosing class, in source order); a class declared in a method
    ``Outer$1Local``. "" outside any class."""
    chain: list[Node] = []
    parent = node.parent
    while parent is not None:
        creation = parent.parent if parent.type == "class_body" else None
        if parent.type in _CLASS_NODES:
            chain.append(parent)
        elif creation is not None and creation.type == "object_creation_expression":
            chain.append(creation)  # an anonymous class
        parent = parent.parent
    name = ""
    for index, cls in enumerate(reversed(chain)):
        if index == 0:
            name = text(cls.child_by_field_name("name")) or "?"
            continue
        enclosing = list(reversed(chain))[index - 1]
        name += "$" + _local_name(cls, enclosing)
    return name


def _local_name(cls: Node, enclosing: Node) -> str:
    """The part after ``$`` of a class inside ``enclosing``: its name for a member class, ``N`` for the Nth
    anonymous class, ``NName`` for a class declared in a method (N counts the local classes of that name)."""
    member = cls.parent is not None and cls.parent.type in ("class_body", "enum_body_declarations",
                                                            "interface_body", "enum_body")
    if cls.type == "object_creation_expression":
        return str(1 + sum(1 for other in _nested(enclosing) if other.type == "object_creation_expression"
                           and other.start_byte < cls.start_byte))
    name = text(cls.child_by_field_name("name"))
    if member:
        return name
    return str(1 + sum(1 for other in _nested(enclosing) if other.type != "object_creation_expression"
                       and text(other.child_by_field_name("name")) == name
                       and other.start_byte < cls.start_byte)) + name


def _nested(enclosing: Node) -> Iterator[Node]:
    """The classes directly inside ``enclosing`` (not inside a class nested in it): anonymous classes and
    class declarations."""
    body = enclosing.child_by_field_name("body") if enclosing.type in _CLASS_NODES else \
        next((c for c in enclosing.named_children if c.type == "class_body"), None)
    if body is None:
        return
    stack = list(reversed(body.named_children))
    while stack:
        node = stack.pop()
        if node.type in _CLASS_NODES:
            yield node
            continue
        if node.type == "object_creation_expression" and any(c.type == "class_body" for c in node.named_children):
            yield node
            stack.extend(reversed([c for c in node.named_children if c.type != "class_body"]))
            continue
        stack.extend(reversed(node.named_children))
