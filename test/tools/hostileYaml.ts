/** YAML a reader must refuse without expanding or recursing: the manifest reader's tests and the CLI's share these. */

/** A "billion laughs" document: nine levels of nine aliases each, 9^9 strings once expanded. */
export function aliasBomb(): string {
    const lines = [
        "apiVersion: v1",
        "kind: ConfigMap",
        "metadata: { name: laughs }",
        "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]",
    ];
    let previous = "a";
    for (const anchor of "bcdefghi") {
        lines.push(`${anchor}: &${anchor} [${Array(9).fill(`*${previous}`).join(", ")}]`);
        previous = anchor;
    }
    return `${lines.join("\n")}\n`;
}

/** One object nested `depth` flow sequences deep: beyond what the YAML parser's stack can follow. */
export function tooDeep(depth: number): string {
    return `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: deep }\ndata: { a: ${"[".repeat(depth)}1${"]".repeat(depth)} }\n`;
}
