/**
 * YAML text to values, within the `yaml` library's own resource limits, for every file the tools
 * read (stack files, manifests). A document that would exhaust the reader — an alias bomb, nesting
 * deeper than the parser's stack — is bad input naming file and line, never a crash.
 */
import * as YAML from "yaml";

/**
 * Alias expansions allowed per document (the library's `maxAliasCount`; its default is 100).
 * Kubernetes manifests and stack files rarely alias at all; an alias bomb ("billion laughs")
 * needs millions.
 */
export const MAX_ALIAS_COUNT = 1000;

/** Makes the caller's error for `file` at `line`. */
export type YamlErrorFactory = (line: number | undefined, message: string) => Error;

function lineOfNode(node: unknown, lineCounter: YAML.LineCounter): number | undefined {
    const range = (node as { range?: [number, number, number] } | null)?.range;
    return range ? lineCounter.linePos(range[0]).line : undefined;
}

/**
 * The line of the first alias of the document (where an expansion that went too far starts), or
 * with `unresolvedOnly` of the first alias whose anchor is not set before it.
 */
function aliasLine(doc: YAML.Document.Parsed, lineCounter: YAML.LineCounter, unresolvedOnly: boolean): number | undefined {
    const anchors = new Set<string>();
    let line: number | undefined;
    YAML.visit(doc, {
        Node(_key, node) {
            if (YAML.isAlias(node)) {
                if (!unresolvedOnly || !anchors.has(node.source)) {
                    line = lineOfNode(node, lineCounter);
                    return YAML.visit.BREAK;
                }
            } else if (node.anchor) {
                anchors.add(node.anchor);
            }
            return undefined;
        },
    });
    return line;
}

/**
 * The value of one parsed document. Parse errors, alias bombs and over-deep nesting become the
 * caller's error with the line where they are (`lineCounter` must be the one the document was
 * parsed with).
 */
export function documentValue(doc: YAML.Document.Parsed, lineCounter: YAML.LineCounter, fail: YamlErrorFactory): unknown {
    const err = doc.errors[0];
    if (err) {
        const message = err.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
        throw fail(
            err.linePos?.[0].line,
            err.code === "RESOURCE_EXHAUSTION"
                ? `nested too deeply to read (the YAML parser ran out of stack here: ${message}); flatten the document`
                : `not valid YAML: ${message}`,
        );
    }
    try {
        return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (e) {
        if (e instanceof ReferenceError && /excessive alias count/i.test(e.message)) {
            throw fail(
                aliasLine(doc, lineCounter, false),
                `aliases from here expand to more than ${MAX_ALIAS_COUNT} nodes, the limit per document (an alias bomb exhausts memory); write the values out instead`,
            );
        }
        if (e instanceof ReferenceError) {
            throw fail(aliasLine(doc, lineCounter, true), `not valid YAML: ${e.message}`);
        }
        if (e instanceof RangeError) {
            throw fail(lineOfNode(doc.contents, lineCounter), `nested too deeply to read (${e.message}); flatten the document`);
        }
        throw e;
    }
}

/** The line a node (a document's contents, a list item) starts on; 1 when unknown. */
export function nodeLine(node: unknown, lineCounter: YAML.LineCounter): number {
    return lineOfNode(node, lineCounter) ?? 1;
}
