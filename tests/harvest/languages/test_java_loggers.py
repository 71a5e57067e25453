"""Java loggers reached through other classes, superclasses and getters, and the class log4j names."""

from __future__ import annotations

from errdex.harvest.languages import TreeFacts, finder_for
from errdex.harvest.languages.java import _PARSER
from errdex.harvest.languages.java_loggers import binary_name
from errdex.harvest.sinks import parse_levels

FINDER = finder_for("A.java")

NAME_NODE = b'''
package org.acme.net;
public class NameNode {
    public static final Log stateChangeLog = LogFactory.getLog("org.acme.StateChange");
    static final org.slf4j.Logger audit = LoggerFactory.getLogger("audit");
    private static final Object journal = LogManager.getLogger(NameNode.class);
    static class Inner {
        static final Log LOG = LogFactory.getLog(Inner.class);
    }
}
'''
STORAGE = b'''
package org.acme.net;
class Storage {
    protected static final Log journalLog = LogFactory.getLog("journal");
    static Log LOG() { return journalLog; }
}
class Backup extends Storage { }
'''
USER = b'''
package org.acme.web;
class Handler extends Backup {
    void handle(String dir) {
        NameNode.stateChangeLog.info("BLOCK* NameSystem.allocateBlock: " + dir);
        org.acme.net.NameNode.audit.warn("audited " + dir);
        NameNode.Inner.LOG.error("inner failed for " + dir);
        DataNode.LOG.warn("served " + dir);
        journalLog.info("Checkpoint saved to " + dir);
        LOG().info("Backup storage directory " + dir + " is not formatted");
        this.getLogger().warn("from a getter " + dir);
        NameNode.journal.error("journal of " + dir);
        NameNode.counters.error("not a logger " + dir);
        Handler.helper.info("not a logger either " + dir);
    }
}
'''


def _tree_facts(*sources: bytes) -> TreeFacts:
    assert FINDER is not None
    facts = TreeFacts()
    for source in sources:
        facts.add(FINDER.survey(source))
    return facts


def test_the_first_pass_learns_each_classes_loggers_and_parents() -> None:
    facts = _tree_facts(NAME_NODE, STORAGE)
    assert {"NameNode.stateChangeLog", "org.acme.net.NameNode.stateChangeLog", "NameNode.audit",
            "NameNode.journal", "NameNode.Inner.LOG", "Storage.journalLog", "Storage.LOG()"} <= facts.loggers
    assert facts.parents == {"Backup": "Storage"}


def test_a_logger_of_another_class_an_inherited_one_and_a_getter_are_loggers() -> None:
    assert FINDER is not None
    facts = _tree_facts(NAME_NODE, STORAGE, USER)
    found = FINDER.find(USER, "org/acme/web/Handler.java", sinks=FINDER.default_sinks,
                        levels=parse_levels("all"), facts=facts)
    lines = sorted(site.line for site in found.sites)
    assert lines == [5, 6, 7, 8, 9, 10, 11, 12]
    by_line = {site.line: site for site in found.sites}
    assert by_line[5].error_class == "NameNode.stateChangeLog"
    assert by_line[5].function == "Handler.handle"


def test_without_the_tree_only_the_usual_names_count() -> None:
    assert FINDER is not None
    found = FINDER.find(USER, "org/acme/web/Handler.java", sinks=FINDER.default_sinks,
                        levels=parse_levels("all"), facts=TreeFacts())
    assert sorted(site.line for site in found.sites) == [7, 8, 10, 11]


OUTER = b'''class Outer {
    Runnable a = new Runnable() { public void run() { A(); } };
    class Inner {
        void m() {
            Runnable b = new Runnable() {
                public void run() {
                    Runnable c = new Runnable() { public void run() { C(); } };
                    B();
                }
            };
            class Local { void l() { L(); } }
        }
    }
    void n() {
        class Local { void l() { N(); } }
        Runnable d = new Runnable() { public void run() { D(); } };
    }
    void o() {
        class Local { void l() { O(); } }
    }
}
'''


def test_the_class_of_a_statement_is_named_as_the_jvm_names_it() -> None:
    """The names javac 17 gives these classes (``Outer$Inner$1$1.class``...)."""
    root = _PARSER.parse(OUTER).root_node
    calls = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "method_invocation":
            calls[node.text.decode()] = binary_name(node)
        stack.extend(node.children)
    assert calls == {"A()": "Outer$1", "B()": "Outer$Inner$1", "C()": "Outer$Inner$1$1",
                     "L()": "Outer$Inner$1Local", "N()": "Outer$1Local", "D()": "Outer$2",
                     "O()": "Outer$2Local"}
