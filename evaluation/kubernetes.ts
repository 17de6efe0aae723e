/**
 * Kubernetes resources as policies see them: the kind behind a Pulumi type token (and, for custom
 * resources, behind `apiVersion`/`kind`), and the pod template of every workload kind.
 */
import { asArray, asNumber, asRecord, asString, field, has, isBuiltInGroup, path, Rec, stringMap } from "eks-platform-kernel";
import type { ReplicaRange } from "./autoscaling";
import { isUnknownValueError } from "./sdk";
import { violation } from "./verdicts";

export interface KubernetesKind {
    /** API group; `""` for the core group. */
    group: string;
    version: string;
    kind: string;
}

/**
 * The Kubernetes kind of a resource: from the type token (`kubernetes:apps/v1:Deployment`), and
 * for custom resources from the object's own `apiVersion`/`kind` when they are readable, since a
 * custom resource may be registered under another token (YAML, generic CustomResource).
 */
export function kubernetesKind(type: string, props: unknown): KubernetesKind | undefined {
    if (!type.startsWith("kubernetes:")) {
        return undefined;
    }
    const match = /^kubernetes:([^/:]+)\/([^:]+):([A-Za-z0-9]+)$/.exec(type);
    const fromToken = match ? { group: match[1] === "core" ? "" : match[1], version: match[2], kind: match[3] } : undefined;
    if (fromToken && isBuiltInGroup(fromToken.group)) {
        return fromToken;
    }
    let apiVersion: string | undefined;
    let kind: string | undefined;
    try {
        apiVersion = asString(field(props, "apiVersion"));
        kind = asString(field(props, "kind"));
    } catch (err) {
        if (!isUnknownValueError(err)) {
            throw err;
        }
    }
    if (apiVersion && kind) {
        const slash = apiVersion.lastIndexOf("/");
        return { group: slash < 0 ? "" : apiVersion.slice(0, slash), version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1), kind };
    }
    return fromToken;
}

/** True when the resource is `group`/`kind` (any version). */
export function isKind(type: string, props: unknown, group: string, kind: string): boolean {
    const k = kubernetesKind(type, props);
    return k !== undefined && k.group === group && k.kind === kind;
}

/**
 * The API version of a Karpenter object (`v1`, `v1beta1`, …) when it is `group`/`kind`, else
 * `undefined`. Karpenter 1.x serves only `v1`; older versions need their own reading.
 */
export function karpenterVersion(type: string, props: unknown, group: string, kind: string): string | undefined {
    const k = kubernetesKind(type, props);
    return k !== undefined && k.group === group && k.kind === kind ? k.version : undefined;
}

/**
 * The violation for a Karpenter object written against an API version other than v1
 * (`karpenter.sh/v1beta1`): the v1 field checks do not apply to it, and current Karpenter
 * releases do not serve it.
 */
export function karpenterVersionViolation(subject: string, group: string, version: string, changes: string): string {
    return violation(
        `${subject} uses apiVersion ${group}/${version}, not Karpenter's v1 API`,
        `Karpenter 1.x serves only ${group}/v1: ${version} objects are served only by pre-1.0 releases (1.0 still converted v1beta1 through conversion webhooks, which 1.1 removed), so on a current Karpenter the API server rejects the object and no node is launched for it; its v1 fields cannot be checked either`,
        `migrate it to apiVersion ${group}/v1 following Karpenter's v1 migration guide (${changes}), then upgrade Karpenter`,
    );
}

export type WorkloadKind = "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet" | "ReplicationController" | "Pod" | "Job" | "CronJob";

const WORKLOAD_GROUPS: Record<WorkloadKind, string[]> = {
    Deployment: ["apps", "extensions"],
    StatefulSet: ["apps"],
    DaemonSet: ["apps", "extensions"],
    ReplicaSet: ["apps", "extensions"],
    ReplicationController: [""],
    Pod: [""],
    Job: ["batch"],
    CronJob: ["batch"],
};

/** Kinds whose pods run until replaced: the ones node drains evict and wait for. */
export const LONG_RUNNING: ReadonlySet<WorkloadKind> = new Set([
    "Deployment",
    "StatefulSet",
    "DaemonSet",
    "ReplicaSet",
    "ReplicationController",
    "Pod",
]);

/** Kinds that keep `spec.replicas` copies of their pods: the ones a PodDisruptionBudget is for. */
export const REPLICATED: ReadonlySet<WorkloadKind> = new Set(["Deployment", "StatefulSet", "ReplicaSet", "ReplicationController"]);

/** The kinds of `LONG_RUNNING`, for messages. */
export const LONG_RUNNING_KINDS = [...LONG_RUNNING].join(", ");

/** The workload kind of a resource, or `undefined` for anything else. */
export function workloadKind(type: string, props: unknown): WorkloadKind | undefined {
    const k = kubernetesKind(type, props);
    if (!k || !(k.kind in WORKLOAD_GROUPS)) {
        return undefined;
    }
    const kind = k.kind as WorkloadKind;
    return WORKLOAD_GROUPS[kind].includes(k.group) ? kind : undefined;
}

/** `metadata.namespace`, or `default` when unset (the namespace the API server uses). */
export function namespaceOf(props: unknown): string {
    return asString(path(props, "metadata", "namespace")) || "default";
}

/** `metadata.name`, or the Pulumi resource name when the program lets Pulumi name the object. */
export function objectName(props: unknown, resourceName: string): string {
    return asString(path(props, "metadata", "name")) || resourceName;
}

/** A workload read into plain data: what the drain policies need. */
export interface Workload {
    kind: WorkloadKind;
    name: string;
    namespace: string;
    /** Pod template labels (Pod: its own labels). */
    podLabels: Record<string, string>;
    /** The pod spec (still the SDK's proxy: read through `values`). */
    podSpec: Rec | undefined;
    /**
     * Pods it keeps running: `spec.replicas` (default 1) for Deployment, StatefulSet, ReplicaSet
     * and ReplicationController, 1 for a Pod, `undefined` when it depends on the cluster (DaemonSet) or on a schedule (Job, CronJob).
     */
    replicas: number | undefined;
    /** `spec.replicas` as written when the API server refuses it (not a non-negative integer); `replicas` is then `undefined`. */
    invalidReplicas?: unknown;
    /** The range an autoscaler keeps it in, overriding `replicas` (set by `withAutoscalers` in stack.ts). */
    autoscaled?: ReplicaRange;
    /** Pulumi URN when known (stack policies report against it). */
    urn?: string;
}

/**
 * The pod template of a workload's properties (a Pod's own metadata and spec). `metadata` is the
 * template's metadata for what few policies need (annotations), read only by them.
 */
export function podTemplateOf(kind: WorkloadKind, props: unknown): { labels: unknown; metadata: unknown; spec: unknown } {
    const template = path(props, ...podTemplatePath(kind));
    const metadata = field(template, "metadata");
    return { labels: field(metadata, "labels"), metadata, spec: field(template, "spec") };
}

/** Where a workload kind keeps its pod template (a Pod is its own): what its pod spec's field paths start with. */
function podTemplatePath(kind: WorkloadKind): string[] {
    return kind === "Pod" ? [] : kind === "CronJob" ? ["spec", "jobTemplate", "spec", "template"] : ["spec", "template"];
}

/** The path of a field of a workload's pod spec, e.g. `podSpecField("Deployment", "containers", 0)`: `spec.template.spec.containers[0]`. */
export function podSpecField(kind: WorkloadKind, ...at: (string | number)[]): (string | number)[] {
    return [...podTemplatePath(kind), "spec", ...at];
}

/** Reads a workload; `undefined` when the resource is not one. Unknown values throw (SDK proxy). */
export function readWorkload(type: string, resourceName: string, props: unknown, urn?: string): Workload | undefined {
    const kind = workloadKind(type, props);
    if (!kind) {
        return undefined;
    }
    const template = podTemplateOf(kind, props);
    const base = () => ({
        kind,
        name: objectName(props, resourceName),
        namespace: namespaceOf(props),
        podLabels: stringMap(template.labels),
        podSpec: asRecord(template.spec),
        ...(urn ? { urn } : {}),
    });
    let replicas: number | undefined;
    if (kind === "Pod") {
        replicas = 1;
    } else if (REPLICATED.has(kind)) {
        const raw = path(props, "spec", "replicas");
        replicas = raw === undefined || raw === null ? 1 : asNumber(raw);
        if (replicas === undefined || !Number.isInteger(replicas) || replicas < 0) {
            // Never a silent skip: the API server refuses such an object, and the policies say so.
            return { ...base(), replicas: undefined, invalidReplicas: raw };
        }
    }
    return { ...base(), replicas };
}

export interface ContainerRef {
    /** `container` or `init container`. */
    role: "container" | "init container";
    name: string;
    spec: Rec;
    /**
     * A native sidecar: an init container with `restartPolicy: Always`, which keeps running beside
     * the containers, can receive Service traffic, and is stopped (preStop hook included) with the pod.
     */
    sidecar: boolean;
    /** Where it is in the pod spec: `["containers", 0]`, `["initContainers", 1]`. */
    at: [string, number];
}

/** Containers and init containers of a pod spec. */
export function containersOf(podSpec: unknown): ContainerRef[] {
    const out: ContainerRef[] = [];
    for (const [list, role] of [
        ["initContainers", "init container"],
        ["containers", "container"],
    ] as const) {
        const items = asArray(field(podSpec, list));
        for (let i = 0; i < items.length; i++) {
            const spec = asRecord(items[i]);
            if (spec) {
                const sidecar = role === "init container" && field(spec, "restartPolicy") === "Always";
                out.push({ role, name: asString(spec.name) || `#${i}`, spec, sidecar, at: [list, i] });
            }
        }
    }
    return out;
}

/**
 * The annotation that marks a deliberate singleton, with the reason as its value, e.g.
 * `platform/singleton: "leader-elected scheduler; clients retry"`. It follows the repository's
 * `platform/` label and tag prefix (`platform/role`, `platform/access-scope`). Such a workload's
 * outage on a drain is accepted: workload-service-replicas and drain-rehearsal leave it alone.
 */
export const SINGLETON_ANNOTATION = "platform/singleton";

/** The reason a workload gives for being a deliberate singleton (`SINGLETON_ANNOTATION`), or `undefined` when it gives none. */
export function singletonReason(props: unknown): string | undefined {
    const reason = path(props, "metadata", "annotations", SINGLETON_ANNOTATION);
    return typeof reason === "string" && reason.trim() !== "" ? reason.trim() : undefined;
}

/** `Deployment prod/api` — how messages name a workload. */
export function describeWorkload(w: { kind: string; namespace: string; name: string }): string {
    return `${w.kind} ${w.namespace}/${w.name}`;
}

/** True when the container has a preStop hook of any handler type. */
export function hasPreStop(container: unknown): boolean {
    const preStop = path(container, "lifecycle", "preStop");
    return asRecord(preStop) !== undefined && Object.keys(preStop as Rec).length > 0;
}

/** What a container's preStop hook sleeps, as far as it can be read. */
export interface PreStopSleep {
    /** Seconds of the sleeps that could be read, summed; `Infinity` for `sleep infinity`; 0 when it does not sleep. */
    seconds: number;
    /**
     * Durations that `sleep` or the API server refuses, as written (`5x`; `$D` in an exec command,
     * where no shell expands it; a `sleep.seconds` that is not an integer). Counted as nothing in
     * `seconds`.
     */
    unreadable: string[];
    /**
     * Durations a shell only knows at run time, as written: a `$VAR` with no literal `env` value
     * (`valueFrom`, the image's environment), `$(cat /x)`. Counted as nothing in `seconds` either:
     * callers must not take `seconds` as the whole sleep unless both lists are empty.
     */
    runtime: string[];
}

// Shells whose `-c` script is searched for sleeps.
const SHELLS = new Set(["sh", "bash", "ash", "dash", "ksh", "mksh", "zsh"]);
// Words that run the command after them (`exec sleep 5`, `busybox sleep 5`).
const WRAPPERS = new Set(["exec", "command", "builtin", "busybox", "nohup"]);
// Shell keywords that may start a simple command inside a compound one.
const KEYWORDS = new Set(["if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}"]);
// A GNU/busybox `sleep` operand: a decimal number (GNU reads it with strtod: a leading `+` and an
// exponent are fine) with an optional unit.
const SLEEP_OPERAND = /^(\+?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)([smhd]?)$/;
// `NAME=value`, a shell variable assignment.
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;
const SLEEP_UNIT: Record<string, number> = { "": 1, s: 1, m: 60, h: 3600, d: 86_400 };

function basename(word: string): string {
    return word.slice(word.lastIndexOf("/") + 1);
}

/** Literal `env` values of a container (`valueFrom` ones are only known at run time). */
function literalEnv(container: unknown): Map<string, string> {
    const out = new Map<string, string>();
    for (const raw of asArray(field(container, "env"))) {
        const name = asString(field(raw, "name"));
        const value = asString(field(raw, "value"));
        if (name && value !== undefined && !has(raw, "valueFrom")) {
            out.set(name, value);
        }
    }
    return out;
}

/**
 * Expands `$NAME`, `${NAME}` and `${NAME:-default}` from literal env values; `undefined` if
 * anything stays unexpanded. With no `env` (no shell) nothing is expanded.
 */
function expand(word: string, env: ReadonlyMap<string, string> | undefined): string | undefined {
    if (!env) {
        return /[$`]/.test(word) ? undefined : word;
    }
    let unresolved = false;
    const out = word.replace(
        /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}$`]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
        (_m, braced, fallback, bare) => {
            const name = (braced ?? bare) as string;
            const value = env.get(name) ?? (fallback as string | undefined);
            if (value === undefined) {
                unresolved = true;
                return "";
            }
            return value;
        },
    );
    return unresolved || /[$`]/.test(out) ? undefined : out;
}

/** Seconds of one `sleep` operand; `undefined` when `sleep` would refuse it or it is not literal. */
function sleepOperand(word: string): number | undefined {
    if (/^inf(inity)?$/i.test(word)) {
        return Infinity;
    }
    const match = SLEEP_OPERAND.exec(word);
    return match ? Number(match[1]) * SLEEP_UNIT[match[2]] : undefined;
}

/**
 * Splits a shell script into simple commands of words, well enough to find `sleep` calls: quotes
 * and backslashes are honoured; `;`, `&`, `|`, newlines, parentheses and backquotes end a
 * command; comments are dropped. Expansions stay in the words (`$X`), to be resolved or refused later.
 * Here-document bodies (`cat <<EOF` … `EOF`) are text, not commands, and are skipped.
 * (`shell-quote`, the usual npm parser, reads a newline as a blank and a comment as running to the
 * end of the input, so the lines of a YAML block script would merge into one command.)
 */
function shellCommands(script: string): string[][] {
    const commands: string[][] = [];
    let words: string[] = [];
    let word = "";
    let inWord = false;
    // Here-documents opened on the current line: their bodies start at the next newline.
    const heredocs: { delimiter: string; stripTabs: boolean }[] = [];
    let heredocOperator: string | undefined;
    const endWord = () => {
        if (inWord) {
            const opened = /^<<(-?)(.+)$/.exec(word);
            if (heredocOperator !== undefined) {
                heredocs.push({ delimiter: word, stripTabs: heredocOperator === "<<-" });
                heredocOperator = undefined;
            } else if (word === "<<" || word === "<<-") {
                heredocOperator = word;
            } else if (opened) {
                heredocs.push({ delimiter: opened[2], stripTabs: opened[1] === "-" });
            }
            words.push(word);
        }
        word = "";
        inWord = false;
    };
    // Skips the bodies of the here-documents opened on the line that ends at `newline`; returns
    // the index of the newline that ends the last delimiter line.
    const skipHeredocs = (newline: number): number => {
        let at = newline;
        for (const { delimiter, stripTabs } of heredocs.splice(0)) {
            while (at < script.length) {
                const next = script.indexOf("\n", at + 1);
                const end = next < 0 ? script.length : next;
                const line = script.slice(at + 1, end).replace(/\r$/, "");
                at = end;
                if ((stripTabs ? line.replace(/^\t+/, "") : line) === delimiter) {
                    break;
                }
            }
        }
        return at;
    };
    const endCommand = () => {
        endWord();
        if (words.length > 0) {
            commands.push(words);
        }
        words = [];
    };
    // `$(…)` and backquoted command substitutions stay whole in the word: their value is only known at run time.
    const substitution = (i: number): number => {
        if (script[i] === "`") {
            const end = script.indexOf("`", i + 1);
            return end < 0 ? script.length : end + 1;
        }
        let depth = 0;
        for (let j = i + 1; j < script.length; j++) {
            if (script[j] === "(") {
                depth++;
            } else if (script[j] === ")" && --depth === 0) {
                return j + 1;
            }
        }
        return script.length;
    };
    for (let i = 0; i < script.length; i++) {
        const ch = script[i];
        if ((ch === "$" && script[i + 1] === "(") || ch === "`") {
            const end = substitution(i);
            word += script.slice(i, end);
            inWord = true;
            i = end - 1;
        } else if (ch === "\\") {
            if (i + 1 < script.length && script[i + 1] !== "\n") {
                word += script[i + 1];
                inWord = true;
            }
            i++;
        } else if (ch === "'") {
            const end = script.indexOf("'", i + 1);
            word += script.slice(i + 1, end < 0 ? script.length : end);
            inWord = true;
            i = end < 0 ? script.length : end;
        } else if (ch === '"') {
            inWord = true;
            for (i++; i < script.length && script[i] !== '"'; i++) {
                if ((script[i] === "$" && script[i + 1] === "(") || script[i] === "`") {
                    const end = substitution(i);
                    word += script.slice(i, end);
                    i = end - 1;
                } else if (script[i] === "\\" && i + 1 < script.length && '"\\$`'.includes(script[i + 1])) {
                    // An escaped `$` or backquote is literal: keep it marked so it is not taken for a number.
                    word += script[i + 1] === "$" || script[i + 1] === "`" ? `\\${script[i + 1]}` : script[i + 1];
                    i++;
                } else {
                    word += script[i];
                }
            }
        } else if (ch === "#" && !inWord) {
            const end = script.indexOf("\n", i);
            i = end < 0 ? script.length : end - 1;
        } else if (";&|\n()".includes(ch)) {
            endCommand();
            if (ch === "\n" && heredocs.length > 0) {
                i = skipHeredocs(i);
            }
        } else if (/\s/.test(ch)) {
            endWord();
        } else {
            word += ch;
            inWord = true;
        }
    }
    endCommand();
    return commands;
}

/**
 * Adds the sleeps of one command (argv) to `out`; shells' `-c` scripts are searched, up to
 * `depth` levels. `env` expands `$VAR` in words of a shell script; the exec command itself is
 * run without a shell, so nothing is expanded there (`env` is `undefined`).
 */
function commandSleeps(
    argv: readonly string[],
    env: ReadonlyMap<string, string> | undefined,
    shellEnv: ReadonlyMap<string, string>,
    out: PreStopSleep,
    depth: number,
): void {
    let i = 0;
    // Leading assignments, wrappers (`exec`, `busybox`), `env` with its assignments, and shell keywords.
    while (i < argv.length) {
        const w = argv[i];
        if (KEYWORDS.has(w) || WRAPPERS.has(basename(w)) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) {
            i++;
        } else if (basename(w) === "env") {
            i++;
            while (i < argv.length && (argv[i].startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[i]))) {
                i++;
            }
        } else {
            break;
        }
    }
    if (i >= argv.length) {
        return;
    }
    const program = basename(argv[i]);
    const args = argv.slice(i + 1);
    if (program === "sleep") {
        for (let j = 0; j < args.length; j++) {
            const a = args[j];
            if (a === "--") {
                continue;
            }
            if (/^\d*[<>]/.test(a)) {
                // A redirection; a bare operator (`>`, `2>`) takes the next word as its target.
                if (/^\d*[<>]+$/.test(a)) {
                    j++;
                }
                continue;
            }
            const literal = expand(a, env);
            const seconds = literal === undefined ? undefined : sleepOperand(literal);
            if (literal === undefined && env !== undefined) {
                // A shell expands it when the hook runs, from values this object does not hold.
                out.runtime.push(a);
            } else if (seconds === undefined) {
                out.unreadable.push(a);
            } else {
                out.seconds += seconds;
            }
        }
        return;
    }
    if (SHELLS.has(program) && depth > 0) {
        const flag = args.findIndex((a) => /^-[A-Za-z]*c[A-Za-z]*$/.test(a));
        const script = flag < 0 ? undefined : args.slice(flag + 1).find((a) => !a.startsWith("-"));
        // Variables the script sets itself (`D=5`, `export D=5`) count from the next command on.
        const local = new Map(shellEnv);
        for (const words of shellCommands(script ?? "")) {
            const declared = ["export", "readonly", "local", "declare", "typeset"].includes(words[0]) ? words.slice(1) : words;
            if (declared.length > 0 && declared.every((w) => ASSIGNMENT.test(w))) {
                for (const w of declared) {
                    const [, name, value] = ASSIGNMENT.exec(w) as RegExpExecArray;
                    const literal = expand(value, local);
                    if (literal === undefined) {
                        local.delete(name);
                    } else {
                        local.set(name, literal);
                    }
                }
                continue;
            }
            commandSleeps(words, local, local, out, depth - 1);
        }
    }
}

/**
 * What a container's preStop hook sleeps: the `sleep` action (a non-negative integer, as the API
 * server requires: `"5"` is refused), or the `sleep` calls of an `exec` hook, summed (`sleep 5; nginx -s quit; sleep 2` is 7):
 * the command itself when it is `sleep` (`/bin/sleep`, `busybox sleep`), or the `sleep` calls of
 * the script of a shell run with `-c` (`sh`, `bash`, … by any path). Operands follow GNU and
 * busybox `sleep`: several are added up, each a decimal number with an optional unit `s`, `m`,
 * `h` or `d` (`sleep 1m 30s` is 90), `infinity` never ends; `$VAR` is read from the container's
 * literal `env` values. What only shows at run time is returned in `runtime`, what would be refused
 * in `unreadable`: never a silent 0.
 */
export function preStopSleep(container: unknown): PreStopSleep {
    const out: PreStopSleep = { seconds: 0, unreadable: [], runtime: [] };
    const preStop = path(container, "lifecycle", "preStop");
    const action = field(preStop, "sleep");
    if (action !== undefined && action !== null) {
        const raw = field(action, "seconds");
        if (typeof raw === "number" && Number.isInteger(raw) && raw >= 0) {
            out.seconds = raw;
        } else {
            const why = typeof raw === "string" ? " (a string: the API server requires an integer)" : "";
            out.unreadable.push(`sleep.seconds ${JSON.stringify(raw) ?? "(unset)"}${why}`);
        }
        return out;
    }
    const argv = asArray(path(preStop, "exec", "command"));
    if (argv.length > 0 && argv.every((part) => typeof part === "string")) {
        commandSleeps(argv, undefined, literalEnv(container), out, 3);
    }
    return out;
}
