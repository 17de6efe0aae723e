/**
 * The resource types the program's source can register, found by reading it: every SDK class it
 * constructs (`new aws.ec2.Vpc(`), as its Pulumi type token read from the SDK. Tables kept per type
 * (replacement rules, the deploy role's actions) are checked against this list, so a type a fork
 * adds to a component without a table entry fails a test even when no sample stack renders it.
 */
import * as fs from "fs";
import * as path from "path";
import { ROOT } from "./mocks";

/** The SDK classes the program's source constructs, as `<alias> <path>` (`aws ec2.Vpc`), sorted. */
export function constructedClasses(): string[] {
    const files = (dir: string): string[] =>
        fs
            .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
            .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []));
    const found = new Set<string>();
    for (const file of ["index.ts", ...files("components")]) {
        for (const m of fs.readFileSync(path.join(ROOT, file), "utf8").matchAll(/\bnew (aws|eks|k8s)\.([A-Za-z0-9_.]+)\s*\(/g)) {
            found.add(`${m[1]} ${m[2]}`);
        }
    }
    return [...found].sort();
}

/** The Pulumi type token of a class the program constructs, read from its SDK. */
export function typeOf(constructed: string): string {
    const [alias, classPath] = constructed.split(" ");
    const pkg = { aws: "@pulumi/aws", eks: "@pulumi/eks", k8s: "@pulumi/kubernetes" }[alias] as string;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const cls = classPath.split(".").reduce((o: Record<string, unknown>, k) => o[k] as Record<string, unknown>, require(pkg)) as {
        __pulumiType?: string;
    };
    if (classPath === "Provider") {
        return `pulumi:providers:${cls.__pulumiType}`;
    }
    // A CustomResource's type is its apiVersion and kind: any Kubernetes type.
    return cls.__pulumiType ?? "kubernetes:<apiVersion>:<kind>";
}

/** Every type the program's source can register. */
export function programTypes(): string[] {
    return [...new Set(constructedClasses().map(typeOf))].sort();
}
