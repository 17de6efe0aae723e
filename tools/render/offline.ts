/**
 * Runs the Pulumi program with no engine, no cloud and no credentials: stack files are read the
 * way the CLI reads them, config is handed to the SDK, and every resource registration is
 * answered by an in-process mock that records it. Shared by the offline plan, the policy gate
 * and the tests (test/mocks.ts), so all three see the same resources.
 */
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { UNKNOWN, withoutStackTrace } from "eks-platform-kernel";
import * as YAML from "yaml";
import { FileError, InputError } from "../cli/errors";
import { documentValue } from "../cli/yamlInput";
import { replacementRule } from "./replacements";
import { urnOf } from "../gate/requests";

export interface RecordedResource {
    /** Pulumi type token, e.g. `aws:ec2/subnet:Subnet`. */
    type: string;
    /** Logical name. */
    name: string;
    /** The URN the engine gives it: the ancestors' types joined by `$`, the stack excluded. */
    urn: string;
    /** URNs this resource had before a rename (its `aliases` option), so a diff can follow it. */
    aliases?: string[];
    /** Inputs as the engine receives them; values unknown at preview are `UNKNOWN`. */
    props: Record<string, unknown>;
    /** Resource options that decide what a deletion does. */
    options: { protect?: boolean; retainOnDelete?: boolean; deleteBeforeReplace?: boolean; parent?: string; dependsOn?: string[] };
}

/**
 * Two registrations with one URN. The engine refuses such a program ("Duplicate resource URN")
 * before it changes anything, so the offline run refuses it too, naming both registrations.
 */
export class DuplicateUrnError extends InputError {
    constructor(readonly duplicates: { urn: string; first: string; second: string }[]) {
        super(
            duplicates
                .map(
                    (d) =>
                        `duplicate resource URN ${d.urn}: registered ${d.first} and again ${d.second}. ` +
                        "The Pulumi engine refuses the whole update; give each resource its own name (a stable key such as account+path+name).",
                )
                .join("\n"),
        );
    }
}

/** A stack file or project file that cannot be used; `line` is 1-based when known. */
export class StackFileError extends FileError {}

// The last mapping read from each file, with its text: a tool that reads the stack files before
// rendering (plan.ts, for the project name) and the render itself parse them once (~5 ms for prod).
const parsedYaml = new Map<string, { text: string; value: Record<string, unknown> }>();

/** The top-level mapping of a YAML file; callers only read it (it may be the one parsed before). */
function readYaml(file: string): Record<string, unknown> {
    if (!fs.existsSync(file)) {
        throw new StackFileError(file, undefined, "file not found");
    }
    const text = fs.readFileSync(file, "utf8");
    const known = parsedYaml.get(file);
    if (known?.text === text) {
        return known.value;
    }
    const lineCounter = new YAML.LineCounter();
    const doc = YAML.parseDocument(text, { lineCounter });
    const value = documentValue(doc, lineCounter, (line, message) => new StackFileError(file, line, message));
    if (value !== null && value !== undefined && (typeof value !== "object" || Array.isArray(value))) {
        throw new StackFileError(file, 1, "expected a YAML mapping at the top level");
    }
    const mapping = (value ?? {}) as Record<string, unknown>;
    parsedYaml.set(file, { text, value: mapping });
    return mapping;
}

export interface StackFiles {
    project: string;
    /** Config as the CLI hands it to the program: `ns:key` → string (structured values as JSON). */
    config: Record<string, string>;
}

/**
 * The account the mocks answer with when a stack file names none: AWS's documentation example
 * (it owns no resources), so nothing made up can be mistaken for a real account.
 */
export const SAMPLE_ACCOUNT = "123456789012";

/** Who `pulumi up` of a stack runs as, as the mocks answer `aws.getCallerIdentity` and make up ARNs. */
export interface StackIdentity {
    partition: string;
    account: string;
    /** The role `pulumi up` assumes (`access.deployer`), or a sample one in the account. */
    deployer: string;
}

/**
 * The identity `pulumi up` of the stack runs with. The real program reads it from the AWS
 * credentials (`aws.getCallerIdentity`, components/iam.ts accountContext): in CI those are the
 * stack's deploy role, `access.deployer`, so its ARN is the one home of the stack's account and
 * partition, offline as online (tools/roles/deployRole.ts scopes the deploy role by the same ARN). A stack
 * file without a usable one gets the sample account. Pure.
 */
export function stackIdentity(files: StackFiles): StackIdentity {
    let deployer: unknown;
    try {
        deployer = (JSON.parse(files.config[`${files.project}:access`] ?? "null") as Record<string, unknown> | null)?.deployer;
    } catch {
        deployer = undefined; // the config's own validation names a malformed `access`
    }
    const arn = typeof deployer === "string" ? /^arn:(aws[a-z-]*):iam::(\d{12}):role\/.+$/.exec(deployer) : null;
    return arn
        ? { partition: arn[1], account: arn[2], deployer: arn[0] }
        : { partition: "aws", account: SAMPLE_ACCOUNT, deployer: `arn:aws:iam::${SAMPLE_ACCOUNT}:role/platform-deployer` };
}

/** The stack names of `root`: one per `Pulumi.<stack>.yaml`, sorted. */
export function stackNames(root: string): string[] {
    return fs
        .readdirSync(root)
        .map((f) => /^Pulumi\.(.+)\.yaml$/.exec(f)?.[1])
        .filter((s): s is string => s !== undefined)
        .sort();
}

/** Reads `Pulumi.yaml` and `Pulumi.<stack>.yaml` from `root` and merges project defaults. */
export function readStackFiles(root: string, stack: string): StackFiles {
    if (!/^[A-Za-z0-9_.-]+$/.test(stack)) {
        throw new StackFileError(`Pulumi.${stack}.yaml`, undefined, "not a valid stack name");
    }
    const projectFile = path.join(root, "Pulumi.yaml");
    const project = readYaml(projectFile);
    if (typeof project.name !== "string") {
        throw new StackFileError(projectFile, undefined, "has no project `name`");
    }
    const stackFile = path.join(root, `Pulumi.${stack}.yaml`);
    if (!fs.existsSync(stackFile)) {
        const known = stackNames(root);
        throw new StackFileError(stackFile, undefined, `unknown stack "${stack}" (stacks here: ${known.join(", ") || "none"})`);
    }
    const stackConfig = (readYaml(stackFile).config ?? {}) as Record<string, unknown>;
    const config: Record<string, string> = {};
    const projectName = project.name;
    const qualify = (key: string) => (key.includes(":") ? key : `${projectName}:${key}`);
    for (const [key, decl] of Object.entries((project.config ?? {}) as Record<string, unknown>)) {
        if (decl && typeof decl === "object" && "default" in decl) {
            config[qualify(key)] = encode(decl.default);
        }
    }
    for (const [key, value] of Object.entries(stackConfig)) {
        if (value && typeof value === "object" && "secure" in value) {
            throw new StackFileError(stackFile, undefined, `${key} is a secret; the offline plan cannot decrypt it`);
        }
        config[qualify(key)] = encode(value);
    }
    return { project: project.name, config };
}

function encode(value: unknown): string {
    // JSON has no infinity or NaN: keep YAML's `.inf` / `.nan` as written, so the config error
    // names the value instead of a null nobody wrote.
    const finite = (_key: string, v: unknown) =>
        typeof v === "number" && !Number.isFinite(v) ? (Number.isNaN(v) ? ".nan" : v > 0 ? ".inf" : "-.inf") : v;
    return typeof value === "string" ? value : JSON.stringify(value, finite);
}

/** Example outputs for the remote `eks.Cluster` component, whose children mocks never see. */
function eksClusterOutputs(
    name: string,
    inputs: Record<string, unknown>,
    region: string,
    { partition, account }: StackIdentity,
): Record<string, unknown> {
    const clusterName = typeof inputs.name === "string" ? inputs.name : name;
    const endpoint = `https://EXAMPLE0123456789.gr7.${region}.eks.amazonaws.com`;
    const ca = Buffer.from("-----BEGIN CERTIFICATE-----\nMOCK\n-----END CERTIFICATE-----\n").toString("base64");
    const issuer = `https://oidc.eks.${region}.amazonaws.com/id/EXAMPLE0123456789`;
    return {
        ...inputs,
        eksCluster: {
            name: clusterName,
            arn: `arn:${partition}:eks:${region}:${account}:cluster/${clusterName}`,
            endpoint,
            version: inputs.version,
            certificateAuthority: { data: ca },
            vpcConfig: { clusterSecurityGroupId: "sg-0eks0cluster0000000" },
            identities: [{ oidcs: [{ issuer }] }],
        },
        kubeconfigJson: JSON.stringify({
            apiVersion: "v1",
            kind: "Config",
            clusters: [{ name: clusterName, cluster: { server: endpoint, "certificate-authority-data": ca } }],
            contexts: [{ name: clusterName, context: { cluster: clusterName, user: clusterName } }],
            "current-context": clusterName,
            users: [
                {
                    name: clusterName,
                    user: {
                        exec: {
                            apiVersion: "client.authentication.k8s.io/v1beta1",
                            command: "aws",
                            args: ["eks", "get-token", "--cluster-name", clusterName],
                        },
                    },
                },
            ],
        }),
        oidcProviderArn: `arn:${partition}:iam::${account}:oidc-provider/oidc.eks.${region}.amazonaws.com/id/EXAMPLE0123456789`,
        oidcProviderUrl: issuer.replace("https://", ""),
        oidcIssuer: issuer.replace("https://", ""),
        clusterSecurityGroupId: "sg-0eks0cluster0000000",
    };
}

/**
 * `preview` and `up` as the CLI runs them; `diff` is a preview whose computed values (ids, ARNs,
 * generated names, launch template versions) are known and deterministic: each derives from the
 * logical name and the inputs that force a replacement (`tools/render/replacements.ts`), so two renders
 * differ exactly where the engine would give a resource a new id, and that difference reaches
 * every resource that references it.
 */
export type MockMode = "preview" | "up" | "diff";

/**
 * The mock engine. In `preview` mode a new resource's outputs are its inputs and everything the
 * provider computes (ids, ARNs) is unknown, as in a real first `pulumi preview`. In `up` mode
 * computed values are filled with recognisable fakes so tests can follow references.
 */
export class RecordingMocks implements pulumi.runtime.Mocks {
    readonly resources: RecordedResource[] = [];
    /** URNs registered more than once; `runProgram` refuses the run when any exist. */
    readonly duplicates: { urn: string; first: string; second: string }[] = [];
    /** The `transforms` option of each registration (`type::name`), for tests: mocks never run them. */
    readonly transforms = new Map<string, pulumi.ResourceTransform[]>();
    private readonly options = new Map<string, RecordedResource["options"]>();
    private readonly identities = new Map<string, { urn: string; aliases?: string[] }>();
    private readonly qualifiedTypes = new WeakMap<object, string>();
    private readonly registrations = new Map<string, { site: Error; props: Record<string, unknown> }>();

    constructor(
        readonly mode: MockMode,
        readonly region: string = "us-east-1",
        readonly identity: StackIdentity = stackIdentity({ project: "", config: {} }),
    ) {}

    newResource(args: pulumi.runtime.MockResourceArgs): { id: string | undefined; state: Record<string, unknown> } {
        const inputs = args.inputs as Record<string, unknown>;
        const props = markUnknowns(inputs) as Record<string, unknown>;
        const key = `${args.type}::${args.name}`;
        const identity = this.identities.get(key) ?? { urn: this.urn(args.type, args.name) };
        this.resources.push({ type: args.type, name: args.name, ...identity, props, options: this.options.get(key) ?? {} });
        if (args.transforms?.length) {
            this.transforms.set(key, args.transforms);
        }
        if (args.type === "eks:index:Cluster") {
            return { id: `${args.name}-id`, state: eksClusterOutputs(args.name, inputs, this.region, this.identity) };
        }
        if (this.mode === "preview") {
            return { id: undefined, state: inputs };
        }
        if (this.mode === "diff") {
            return diffModeOutputs(args.type, args.name, inputs, this.region, this.identity.account);
        }
        const id = `${args.name}-id`;
        const state: Record<string, unknown> = {
            ...inputs,
            arn: `arn:aws:mock:${this.region}:${this.identity.account}:${args.type.split(":").pop()?.toLowerCase()}/${args.name}`,
        };
        if (state.name === undefined && args.type.startsWith("aws:")) {
            state.name = `${args.name}-name`;
        }
        return { id, state };
    }

    call(args: pulumi.runtime.MockCallArgs): Record<string, unknown> {
        const inputs = args.inputs as Record<string, unknown>;
        switch (args.token) {
            case "aws:index/getCallerIdentity:getCallerIdentity":
                return {
                    accountId: this.identity.account,
                    arn: `arn:${this.identity.partition}:sts::${this.identity.account}:assumed-role/${roleName(this.identity.deployer)}/ci`,
                    userId: "AROAEXAMPLE:ci",
                    id: this.identity.account,
                };
            case "aws:iam/getSessionContext:getSessionContext":
                return { arn: inputs.arn, issuerArn: this.identity.deployer, issuerName: roleName(this.identity.deployer) };
            case "aws:index/getPartition:getPartition":
                return { partition: this.identity.partition, dnsSuffix: dnsSuffix(this.identity.partition), id: this.identity.partition };
            case "aws:index/getRegion:getRegion":
                return { region: this.region, name: this.region, id: this.region };
            case "aws:ssm/getParameter:getParameter":
                // In diff mode a parameter's value follows its name (an AMI release's path), so a
                // pinned release that changes gives a new AMI, and the group using it rolls.
                return {
                    name: inputs.name,
                    value:
                        this.mode === "diff"
                            ? `${DIFF_AMI_MARK}${digest(inputs.name).padEnd(12, "0").slice(0, 12)}`
                            : "ami-0123456789abcdef0",
                    type: "String",
                    id: inputs.name,
                };
            default:
                return inputs;
        }
    }

    private urn(qualifiedType: string, name: string): string {
        return urnOf(pulumi.getStack(), pulumi.getProject(), qualifiedType, name);
    }

    /**
     * Records the options and URN of each registration (called from a stack transformation, which
     * sees every resource before it registers), and any second registration of a URN.
     */
    recordOptions(
        type: string,
        name: string,
        opts: pulumi.CustomResourceOptions | pulumi.ComponentResourceOptions,
        resource?: object,
        props: Record<string, unknown> = {},
    ): void {
        // A resource reference the SDK rebuilds from an engine answer (`opts.urn`, e.g. a role
        // passed to a remote component) is no registration: it must not overwrite the real one.
        if ((opts as { urn?: unknown }).urn !== undefined) {
            return;
        }
        const parentType = opts.parent ? this.qualifiedTypes.get(opts.parent) : undefined;
        const qualified = parentType ? `${parentType}$${type}` : type;
        if (resource) {
            this.qualifiedTypes.set(resource, qualified);
        }
        const urn = this.urn(qualified, name);
        // An alias naming another parent (a resource moved between components) is qualified by that parent's type.
        const aliasUrn = (a: unknown): string | undefined => {
            if (typeof a === "string") {
                return a;
            }
            const spec = a as { name?: unknown; parent?: unknown };
            if (typeof spec.name !== "string") {
                return undefined;
            }
            if (spec.parent === undefined) {
                return this.urn(qualified, spec.name);
            }
            const aliasParentType =
                typeof spec.parent === "object" && spec.parent !== null ? this.qualifiedTypes.get(spec.parent) : undefined;
            return aliasParentType ? this.urn(`${aliasParentType}$${type}`, spec.name) : undefined;
        };
        const aliases = ([] as unknown[])
            .concat(opts.aliases ?? [])
            .map(aliasUrn)
            .filter((a): a is string => a !== undefined);
        this.identities.set(`${type}::${name}`, { urn, ...(aliases.length > 0 ? { aliases } : {}) });
        // Formatted only if a duplicate needs it (`siteOf`).
        const site = new Error();
        const earlier = this.registrations.get(urn);
        if (earlier) {
            const [first, second] = describeRegistrations(earlier, { site, props });
            this.duplicates.push({ urn, first, second });
        } else {
            this.registrations.set(urn, { site, props });
        }
        const dependsOn = ([] as unknown[]).concat(opts.dependsOn ?? []);
        this.options.set(`${type}::${name}`, {
            ...(opts.protect ? { protect: true } : {}),
            ...(opts.retainOnDelete ? { retainOnDelete: true } : {}),
            ...((opts as pulumi.CustomResourceOptions).deleteBeforeReplace ? { deleteBeforeReplace: true } : {}),
            ...(opts.parent ? { parent: (opts.parent as unknown as { __name?: string }).__name } : {}),
            ...(dependsOn.length > 0 ? { dependsOn: dependsOn.map((d) => (d as { __name?: string }).__name ?? "?") } : {}),
        });
    }
}

/** A short stable digest of a JSON-able value. */
function digest(value: unknown): string {
    return createHash("sha256")
        .update(JSON.stringify(value ?? null))
        .digest("hex")
        .slice(0, 10);
}

/** The value at a dot path of the inputs (`launchTemplate.id`). */
function valueAt(inputs: Record<string, unknown>, dotPath: string): unknown {
    return dotPath
        .split(".")
        .reduce<unknown>((v, key) => (v && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined), inputs);
}

const DIFF_ID_MARK = ".mock-";
/** The first hex digits of a `diff`-mode AMI id (`ami-00000` and 12 more): no real AMI starts so. */
const DIFF_AMI_MARK = "ami-00000";

/**
 * A value the offline render made up where the engine would know it only from the cloud: a mock
 * ARN, a `diff`-mode id (`<name>.mock-<generation>`) or AMI id (`ami-00000…`, read from SSM), the
 * EKS cluster's example endpoint and issuer. Reports show such values as `pulumi preview` does an output it cannot know, never as
 * written (tools/changes/diff.ts).
 */
export const MADE_UP_VALUE = new RegExp(
    `arn:aws:mock:[^\\s"',\\]}]*|[\\w.-]+\\${DIFF_ID_MARK}[0-9a-f]{10}|[^\\s"',\\]}]*EXAMPLE0123456789[^\\s"',\\]}]*|\\b${DIFF_AMI_MARK}[0-9a-f]{12}\\b`,
    "g",
);

/** Outputs of a resource in `diff` mode: computed values that change exactly when the resource would be replaced. */
function diffModeOutputs(
    type: string,
    name: string,
    inputs: Record<string, unknown>,
    region: string,
    account: string,
): { id: string; state: Record<string, unknown> } {
    const rule = replacementRule(type);
    const generation = digest(rule ? rule.replaceOn.map((p) => valueAt(inputs, p)) : []);
    const id = `${name}${DIFF_ID_MARK}${generation}`;
    const state: Record<string, unknown> = {
        ...inputs,
        arn: `arn:aws:mock:${region}:${account}:${type.split(":").pop()?.toLowerCase()}/${id}`,
    };
    if (state.name === undefined && type.startsWith("aws:")) {
        // A generated name (namePrefix) is new whenever the resource is.
        state.name = id;
    }
    if (type === "aws:ec2/launchTemplate:LaunchTemplate") {
        // Every content change is a new template version.
        state.latestVersion = parseInt(digest(inputs).slice(0, 7), 16);
    }
    return { id, state };
}

/**
 * The program file and line that called `new` for the resource registered at `site` (an `Error`
 * made while it registered). Only a duplicate URN formats it: formatting maps every frame to its
 * .ts line, and a render registers hundreds of resources for no duplicate at all.
 */
function siteOf(site: Error): string {
    const frames = (site.stack ?? "").split("\n").slice(1);
    const caller = frames
        .map((f) => /\(?([^()\s]+):(\d+):\d+\)?$/.exec(f.trim()))
        .find((m) => m && !/node_modules|[\\/]tools[\\/]render[\\/]offline\./.test(m[1]));
    return caller ? `at ${path.relative(process.cwd(), caller[1])}:${caller[2]}` : "at an unknown place";
}

/** The two registrations of one URN, each with the plain inputs that tell them apart. */
function describeRegistrations(
    a: { site: Error; props: Record<string, unknown> },
    b: { site: Error; props: Record<string, unknown> },
): [string, string] {
    const differing = Object.keys({ ...a.props, ...b.props }).filter(
        (k) => [a.props[k], b.props[k]].some((v) => ["string", "number", "boolean"].includes(typeof v)) && a.props[k] !== b.props[k],
    );
    const show = (r: typeof a) => {
        const shown = differing.slice(0, 3).map((k) => `${k}=${String(r.props[k])}`);
        return `${siteOf(r.site)}${shown.length > 0 ? ` (${shown.join(", ")})` : ""}`;
    };
    return [show(a), show(b)];
}

/** `arn:…:role/path/name` → `name`. */
function roleName(roleArn: string): string {
    return roleArn.split("/").pop() ?? roleArn;
}

/** The DNS suffix of a partition's endpoints (the AWS provider's partition data). */
function dnsSuffix(partition: string): string {
    return { "aws-cn": "amazonaws.com.cn", "aws-iso": "c2s.ic.gov", "aws-iso-b": "sc2s.sgov.gov" }[partition] ?? "amazonaws.com";
}

/** Replaces the mock monitor's unknown markers with the engine's sentinel string. */
function markUnknowns(value: unknown): unknown {
    if (Array.isArray(value)) {
        return value.map(markUnknowns);
    }
    if (value && typeof value === "object") {
        if ((value as Record<string, unknown>).__pulumiUnknown === true) {
            return UNKNOWN;
        }
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, markUnknowns(v)]));
    }
    return value;
}

/** Installs config and mocks; the program must be required only after this. */
export function installMocks(files: StackFiles, stack: string, mode: MockMode): RecordingMocks {
    const mocks = new RecordingMocks(mode, files.config["aws:region"] ?? "us-east-1", stackIdentity(files));
    pulumi.runtime.setAllConfig(files.config);
    void pulumi.runtime.setMocks(mocks, files.project, stack, mode !== "up");
    return mocks;
}

interface StackModule {
    runInPulumiStack: (init: () => Promise<unknown>) => Promise<unknown>;
}

/**
 * Creates the root stack resource, records every later registration's options through a stack
 * transformation, and runs `init` inside it (the program, or nothing for component tests).
 */
export async function runInStack(mocks: RecordingMocks, init: () => unknown): Promise<void> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const stackModule = require("@pulumi/pulumi/runtime/stack") as StackModule;
    let failure: unknown;
    await stackModule.runInPulumiStack(() => {
        pulumi.runtime.registerStackTransformation((t) => {
            mocks.recordOptions(t.type, t.name, t.opts, t.resource, t.props);
            return undefined;
        });
        try {
            return Promise.resolve(init());
        } catch (err) {
            failure = err;
            return Promise.resolve(undefined);
        }
    });
    if (failure !== undefined) {
        throw failure instanceof Error ? failure : new Error(JSON.stringify(failure));
    }
}

/** Waits until every registration the program started has been answered. */
export async function settle(): Promise<void> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const settings = require("@pulumi/pulumi/runtime/settings") as { waitForRPCs: () => Promise<void> };
    await settings.waitForRPCs();
}

export interface OfflineRun {
    stack: string;
    resources: RecordedResource[];
}

let sdkStacksUnmapped = false;

/**
 * The SDK records `new Error().stack` for every promise it tracks (`debuggablePromise` in
 * `runtime/debuggable.js`, about ten thousand per prod render) and for every resource it registers
 * (`Resource.callsites` in `resource.js`, with no frame limit, for the source position the CLI
 * shows), and under ts-node every frame of every such stack goes through source-map-support: a
 * third of a render. The second go to the resource monitor, which offline is the mock, so they are
 * formatted unmapped. The first are read only by the SDK's promise-leak report, and only with
 * `PULUMI_DEBUG_PROMISE_LEAKS` set (`debugPromiseLeaks`, @pulumi/pulumi 3.270.0): without it they
 * capture no frame at all (`debuggablePromise` runs with `Error.stackTraceLimit` 0, so the stack
 * reads `Error`; leak tracking itself is the SDK's, unchanged), with it they are formatted
 * unmapped like the second. Capturing and formatting them was 90 ms of a 0.9 s prod plan on 2
 * cores (docs/benchmarks.md). Any other error keeps its mapped stack.
 */
export function leaveSdkStacksUnmapped(): void {
    const mapped = Error.prepareStackTrace?.bind(Error) as ((error: Error, frames: NodeJS.CallSite[]) => unknown) | undefined;
    if (sdkStacksUnmapped || !mapped) {
        return;
    }
    sdkStacksUnmapped = true;
    const debuggable = require.resolve("@pulumi/pulumi/runtime/debuggable");
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const tracker = require(debuggable) as { debugPromiseLeaks?: boolean; debuggablePromise: (p: unknown, ctx: unknown) => unknown };
    if (!tracker.debugPromiseLeaks) {
        // The SDK's modules call it through this export (`debuggable_1.debuggablePromise(…)`).
        const track = tracker.debuggablePromise;
        tracker.debuggablePromise = (p, ctx) => withoutStackTrace(() => track(p, ctx));
    }
    const sdkFiles = new Set([debuggable, require.resolve("@pulumi/pulumi/resource")]);
    const plain = (error: Error, frames: NodeJS.CallSite[]) =>
        [
            String(error),
            ...frames.map(
                (f) =>
                    `    at ${f.getFunctionName() ?? "<anonymous>"} (${f.getFileName() ?? "?"}:${f.getLineNumber() ?? 0}:${f.getColumnNumber() ?? 0})`,
            ),
        ].join("\n");
    Error.prepareStackTrace = (error, frames) =>
        sdkFiles.has(frames[0]?.getFileName() ?? "") ? plain(error, frames) : mapped(error, frames);
}

/**
 * Renders one stack: reads its files, runs `programPath` inside a mocked stack and returns every
 * registered resource (the stack itself excluded). Config errors propagate before any resource.
 */
export async function runProgram(root: string, stack: string, programPath: string, mode: MockMode = "preview"): Promise<OfflineRun> {
    const files = readStackFiles(root, stack);
    leaveSdkStacksUnmapped();
    const mocks = installMocks(files, stack, mode);
    try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        await runInStack(mocks, () => require(programPath) as unknown);
    } finally {
        await settle();
    }
    if (mocks.duplicates.length > 0) {
        throw new DuplicateUrnError(mocks.duplicates);
    }
    return { stack, resources: mocks.resources.filter((r) => r.type !== "pulumi:pulumi:Stack") };
}
