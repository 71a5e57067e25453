"""Python functions that raise for their callers, and exception classes that write their own message.

- A raiser: a function whose body raises an exception built from one of its parameters, as the message
  (jinja2's ``def fail(self, msg, lineno=None, exc=TemplateSyntaxError): raise exc(msg, lineno, ...)``), or
  hands that parameter on to another raiser of the file (``def fail_eof(self, msg): self.fail(msg)``). Its
  callers' calls (``self.fail("expected call", node.lineno)``) are raise sites at the caller's line, of the
  class the raiser raises (its parameter's default, or the class the caller passes for that parameter).
- A maker: a function that returns such an exception (``def _error(self, msg): return ParseError(msg)``):
  ``raise self._error("...")`` raises a ``ParseError``.
- A class message: an exception class whose ``__str__`` returns a message, or whose ``__init__`` hands one to
  ``super().__init__`` (``class UndefinedError(Exception): def __str__(self): return f"{self.name!r} is
  undefined"``): what ``raise UndefinedError(name)`` prints when its arguments hold no text of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import tree_sitter

from errdex.harvest.formats import join
from errdex.harvest.languages import Raiser
from errdex.harvest.languages._shared import own_nodes
from errdex.harvest.languages._tree import text
from errdex.harvest.pattern import has_literal
from errdex.harvest.sites import Choice, Template, Text

__all__ = ["class_messages", "message_argument", "raisers"]

Node = tree_sitter.Node
_SCOPES = ("function_definition", "class_definition", "lambda")
_MESSAGE_KEYWORDS = frozenset({"message", "msg", "detail", "reason", "description", "text", "error"})
#: Rounds of "a function that hands its parameter to a raiser is a raiser" within one file.
_ROUNDS = 3


def message_argument(args: Node) -> Node | None:
    """The argument of an exception's constructor that holds its message: the first positional one that is
    not ``self``/``cls`` (``ClosedPoolError(self, "Pool is closed.")``), else a keyword such as ``detail=``."""
    first = next((a for a in args.named_children if a.type not in ("keyword_argument", "comment")
                  and text(a) not in ("self", "cls")), None)
    if first is None:
        first = next((a.child_by_field_name("value") for a in args.named_children if a.type == "keyword_argument"
                      and text(a.child_by_field_name("name")) in _MESSAGE_KEYWORDS), None)
    return first


def _parameters(function: Node) -> list[tuple[str, Node | None]]:
    """(name, default) of each parameter, in order (``*args`` and ``**kwargs`` by their bare names)."""
    parameters = function.child_by_field_name("parameters")
    found: list[tuple[str, Node | None]] = []
    for parameter in parameters.named_children if parameters is not None else ():
        if parameter.type == "identifier":
            found.append((text(parameter), None))
        elif parameter.type in ("default_parameter", "typed_default_parameter"):
            found.append((text(parameter.child_by_field_name("name")), parameter.child_by_field_name("value")))
        elif parameter.type == "typed_parameter" and parameter.named_children:
            found.append((text(parameter.named_children[0]), None))
        else:
            found.append(("*", None))  # *args, **kwargs, a bare * or /: later positions are not plain
    return found


def _own(function: Node, kinds: tuple[str, ...]) -> Iterator[Node]:
    """The nodes of ``kinds`` in the function's own body (not in the functions and classes inside it)."""
    return own_nodes(function, kinds, _SCOPES)


def _functions(root: Node) -> Iterator[Node]:
    stack = [root]
    while stack:
        current = stack.pop()
        if current.type == "function_definition":
            yield current
        stack.extend(current.children)


def _raiser(function: Node, call: Node, known: dict[str, Raiser] | None) -> Raiser | None:
    """The raiser ``function`` is when ``call`` (raised, returned, or a call of a ``known`` raiser) builds its
    exception from one of the function's parameters as the message; None otherwise."""
    called, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
    if called is None or args is None or args.type != "argument_list":
        return None
    parameters = _parameters(function)
    names = [name for name, _ in parameters]
    offset = 1 if names and names[0] in ("self", "cls") else 0
    plain = names[:names.index("*")] if "*" in names else names
    if known is None:
        message = message_argument(args)
        error_class, class_parameter = text(called), None
    else:
        inner = known.get(text(called).rsplit(".", 1)[-1])
        if inner is None:
            return None
        message = argument(args, inner.position, inner.parameter)
        error_class, class_parameter = inner.error_class, None
        if inner.class_position is not None:
            given = argument(args, inner.class_position, inner.class_parameter or "")
            if given is not None:
                error_class = text(given)
    if message is None or message.type != "identifier" or text(message) not in plain[offset:] \
            or _rebound(function, text(message)):
        return None
    if error_class in plain[offset:]:  # ``raise exc(msg, ...)``: the class is a parameter too
        class_parameter = error_class
        default = parameters[names.index(error_class)][1]
        error_class = text(default) if default is not None else "Exception"
    if not error_class[:1].isalpha():
        return None
    return Raiser(position=plain.index(text(message)) - offset, parameter=text(message), error_class=error_class,
                  class_position=plain.index(class_parameter) - offset if class_parameter else None,
                  class_parameter=class_parameter, returns=known is None and call.parent is not None
                  and call.parent.type == "return_statement")


def _rebound(function: Node, name: str) -> bool:
    """Whether the function's own body assigns the parameter again (``msg = f"{prefix}: {msg}"``): what it
    raises is then not what its callers pass."""
    for assignment in _own(function, ("assignment", "augmented_assignment", "named_expression")):
        target = assignment.child_by_field_name("left") or assignment.child_by_field_name("name")
        if target is not None and text(target) == name:
            return True
    return False


def argument(args: Node, position: int, name: str) -> Node | None:
    """The argument a call passes for a parameter: by keyword, else at its position."""
    for candidate in args.named_children:
        if candidate.type == "keyword_argument" and text(candidate.child_by_field_name("name")) == name:
            return candidate.child_by_field_name("value")
    positional = [a for a in args.named_children if a.type not in ("keyword_argument", "comment",
                                                                   "list_splat", "dictionary_splat")]
    return positional[position] if 0 <= position < len(positional) else None


def raisers(root: Node) -> dict[str, Raiser]:
    """The file's raisers and makers, by function name (the first of a name in the file)."""
    found: dict[str, Raiser] = {}
    functions = list(_functions(root))
    for function in functions:
        name = text(function.child_by_field_name("name"))
        if not name or name.startswith("__"):
            continue
        for statement in _own(function, ("raise_statement", "return_statement")):
            call = statement.named_children[0] if statement.named_children else None
            if call is not None and call.type == "call":
                made = _raiser(function, call, None)
                if made is not None and (statement.type == "raise_statement" or made.returns) \
                        and (statement.type == "raise_statement" or made.error_class[:1].isupper()):
                    found.setdefault(name, made)
                    break
    for _ in range(_ROUNDS):
        grown = False
        for function in functions:
            name = text(function.child_by_field_name("name"))
            if not name or name.startswith("__") or name in found:
                continue
            for call in _own(function, ("call",)):
                made = _raiser(function, call, {k: v for k, v in found.items() if not v.returns})
                if made is not None and call.parent is not None and call.parent.type == "expression_statement":
                    found[name] = made
                    grown = True
                    break
        if not grown:
            break
    return found


def forwards(function: Node | None, message: Node, found: dict[str, Raiser]) -> bool:
    """Whether ``message``, the message of a raise or of a raiser's call in ``function``, is the parameter
    that makes ``function`` a raiser itself: its callers are the sites, not this statement."""
    if function is None or message.type != "identifier":
        return False
    raiser = found.get(text(function.child_by_field_name("name")))
    return raiser is not None and not raiser.returns and raiser.parameter == text(message)


def _first_line(template: Template) -> Template:
    """What a traceback's last line shows of a message: up to its first line break; () when that holds no
    literal text (``f"{self.message}\\n  line {self.lineno}"`` is the message it was given, not the class's)."""
    for number, part in enumerate(template):
        if isinstance(part, Text) and "\n" in part.text.rstrip("\r\n"):
            head = join((*template[:number], Text(part.text.split("\n", 1)[0])))
            return head if has_literal(head) else ()
    return template


def class_messages(root: Node, message: Callable[[Node], Template]) -> dict[str, Template]:
    """Exception classes of the file that write their own message, by class name: what ``__str__`` returns
    (several returns as a choice), or the message ``__init__`` hands to ``super().__init__`` (or
    ``Base.__init__(self, ...)``)."""
    found: dict[str, Template] = {}
    stack = [root]
    while stack:
        current = stack.pop()
        stack.extend(c for c in current.children if c.type not in ("function_definition", "lambda"))
        if current.type != "class_definition" or current.child_by_field_name("superclasses") is None:
            continue
        body = current.child_by_field_name("body")
        methods = {text(m.child_by_field_name("name")): m for m in (body.named_children if body else ())
                   if m.type == "function_definition"}
        options: list[Template] = []
        if "__str__" in methods:
            for statement in _own(methods["__str__"], ("return_statement",)):
                value = statement.named_children[0] if statement.named_children else None
                template = _first_line(message(value)) if value is not None else ()
                if has_literal(template) and template not in options:
                    options.append(template)
        elif "__init__" in methods:
            for call in _own(methods["__init__"], ("call",)):
                called, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
                if called is None or args is None or not text(called).endswith(".__init__"):
                    continue
                value = message_argument(args)
                template = _first_line(message(value)) if value is not None else ()
                if has_literal(template) and template not in options:
                    options.append(template)
        if options:
            found.setdefault(text(current.child_by_field_name("name")),
                             options[0] if len(options) == 1 else (Choice(tuple(options)),))
    return found
