/**
 * Runs the Pulumi program with no engine, no cloud and no credentials: stack files are read the
 * way the CLI reads them, config is handed to the SDK, and every resource registration is
 * answered by an in-process mock that records it. Shared by the offline plan, the policy gate
 * and the tests (test/mocks.ts), so all three see the same resources.
 */
import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { UNKNOWN } from "eks-platform-policies/lib";
import * as YAML from "yaml";
import { FileError } from "./errors";
import { documentValue } from "./yamlInput";

export interface RecordedResource {
    /** Pulumi type token, e.g. `aws:ec2/subnet:Subnet`. */
    type: string;
    /** Logical name. */
    name: string;
    /** Inputs as the engine receives them; values unknown at preview are `UNKNOWN`. */
    props: Record<string, unknown>;
    /** Resource options that decide what a deletion does. */
    options: { protect?: boolean; retainOnDelete?: boolean; parent?: string; dependsOn?: string[] };
}

/** A stack file or project file that cannot be used; `line` is 1-based when known. */
export class StackFileError extends FileError {}

function readYaml(file: string): Record<string, unknown> {
    if (!fs.existsSync(file)) {
        throw new StackFileError(file, undefined, "file not found");
    }
    const lineCounter = new YAML.LineCounter();
    const doc = YAML.parseDocument(fs.readFileSync(file, "utf8"), { lineCounter });
    const value = documentValue(doc, lineCounter, (line, message) => new StackFileError(file, line, message));
    if (value !== null && value !== undefined && (typeof value !== "object" || Array.isArray(value))) {
        throw new StackFileError(file, 1, "expected a YAML mapping at the top level");
    }
    return (value ?? {}) as Record<string, unknown>;
}

export interface StackFiles {
    project: string;
    /** Config as the CLI hands it to the program: `ns:key` → string (structured values as JSON). */
    config: Record<string, string>;
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
        const known = fs
            .readdirSync(root)
            .map((f) => /^Pulumi\.(.+)\.yaml$/.exec(f)?.[1])
            .filter((s): s is string => !!s);
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
function eksClusterOutputs(name: string, inputs: Record<string, unknown>, region: string): Record<string, unknown> {
    const clusterName = typeof inputs.name === "string" ? inputs.name : name;
    const endpoint = `https://EXAMPLE0123456789.gr7.${region}.eks.amazonaws.com`;
    const ca = Buffer.from("-----BEGIN CERTIFICATE-----\nMOCK\n-----END CERTIFICATE-----\n").toString("base64");
    const issuer = `https://oidc.eks.${region}.amazonaws.com/id/EXAMPLE0123456789`;
    return {
        ...inputs,
        eksCluster: {
            name: clusterName,
            arn: `arn:aws:eks:${region}:123456789012:cluster/${clusterName}`,
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
        oidcProviderArn: `arn:aws:iam::123456789012:oidc-provider/oidc.eks.${region}.amazonaws.com/id/EXAMPLE0123456789`,
        oidcProviderUrl: issuer.replace("https://", ""),
        oidcIssuer: issuer.replace("https://", ""),
        clusterSecurityGroupId: "sg-0eks0cluster0000000",
    };
}

export type MockMode = "preview" | "up";

/**
 * The mock engine. In `preview` mode a new resource's outputs are its inputs and everything the
 * provider computes (ids, ARNs) is unknown, as in a real first `pulumi preview`. In `up` mode
 * computed values are filled with recognisable fakes so tests can follow references.
 */
export class RecordingMocks implements pulumi.runtime.Mocks {
    readonly resources: RecordedResource[] = [];
    private readonly options = new Map<string, RecordedResource["options"]>();

    constructor(
        readonly mode: MockMode,
        readonly region: string = "us-east-1",
    ) {}

    newResource(args: pulumi.runtime.MockResourceArgs): { id: string | undefined; state: Record<string, unknown> } {
        const inputs = args.inputs as Record<string, unknown>;
        const props = markUnknowns(inputs) as Record<string, unknown>;
        this.resources.push({ type: args.type, name: args.name, props, options: this.options.get(`${args.type}::${args.name}`) ?? {} });
        if (args.type === "eks:index:Cluster") {
            return { id: `${args.name}-id`, state: eksClusterOutputs(args.name, inputs, this.region) };
        }
        if (this.mode === "preview") {
            return { id: undefined, state: inputs };
        }
        const id = `${args.name}-id`;
        const state: Record<string, unknown> = {
            ...inputs,
            arn: `arn:aws:mock:${this.region}:123456789012:${args.type.split(":").pop()?.toLowerCase()}/${args.name}`,
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
                    accountId: "123456789012",
                    arn: "arn:aws:sts::123456789012:assumed-role/platform-deployer/ci",
                    userId: "AROAEXAMPLE:ci",
                    id: "123456789012",
                };
            case "aws:iam/getSessionContext:getSessionContext":
                return { arn: inputs.arn, issuerArn: "arn:aws:iam::123456789012:role/platform-deployer", issuerName: "platform-deployer" };
            case "aws:index/getPartition:getPartition":
                return { partition: "aws", dnsSuffix: "amazonaws.com", id: "aws" };
            case "aws:index/getRegion:getRegion":
                return { region: this.region, name: this.region, id: this.region };
            case "aws:ssm/getParameter:getParameter":
                return { name: inputs.name, value: "ami-0123456789abcdef0", type: "String", id: inputs.name };
            default:
                return inputs;
        }
    }

    /** Records the options of each registration (called from a stack transformation). */
    recordOptions(type: string, name: string, opts: pulumi.CustomResourceOptions | pulumi.ComponentResourceOptions): void {
        const dependsOn = ([] as unknown[]).concat(opts.dependsOn ?? []);
        this.options.set(`${type}::${name}`, {
            ...(opts.protect ? { protect: true } : {}),
            ...(opts.retainOnDelete ? { retainOnDelete: true } : {}),
            ...(opts.parent ? { parent: (opts.parent as unknown as { __name?: string }).__name } : {}),
            ...(dependsOn.length > 0 ? { dependsOn: dependsOn.map((d) => (d as { __name?: string }).__name ?? "?") } : {}),
        });
    }
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
    const mocks = new RecordingMocks(mode, files.config["aws:region"] ?? "us-east-1");
    pulumi.runtime.setAllConfig(files.config);
    void pulumi.runtime.setMocks(mocks, files.project, stack, mode === "preview");
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
            mocks.recordOptions(t.type, t.name, t.opts);
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
 * The SDK records `new Error().stack` for every promise it tracks (`runtime/debuggable.js`, a few
 * thousand per render) and for every resource it registers (`Resource.callsites` in
 * `resource.js`, with no frame limit, for the source position the CLI shows), and under ts-node
 * every frame of every such stack goes through source-map-support: a third of a render. The first
 * are printed only by the SDK's promise-leak report and the second go to the resource monitor,
 * which offline is the mock; so both are left unmapped. Any other error keeps its mapped stack.
 */
export function leaveSdkPromiseStacksUnmapped(): void {
    const mapped = Error.prepareStackTrace?.bind(Error) as ((error: Error, frames: NodeJS.CallSite[]) => unknown) | undefined;
    if (sdkStacksUnmapped || !mapped) {
        return;
    }
    sdkStacksUnmapped = true;
    const sdkFiles = new Set([require.resolve("@pulumi/pulumi/runtime/debuggable"), require.resolve("@pulumi/pulumi/resource")]);
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
    leaveSdkPromiseStacksUnmapped();
    const mocks = installMocks(files, stack, mode);
    try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        await runInStack(mocks, () => require(programPath) as unknown);
    } finally {
        await settle();
    }
    return { stack, resources: mocks.resources.filter((r) => r.type !== "pulumi:pulumi:Stack") };
}
