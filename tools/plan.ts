/**
 * The offline plan: what `pulumi up` would create for a stack, rendered with no cloud, no
 * credentials and no Pulumi CLI.
 *
 *   npm run plan -- <stack> [--format text|json]
 *
 * Exit codes: 0 ok, 1 a mandatory policy violation, 2 bad input (unknown stack, invalid config).
 */
import * as path from "path";
import { ConfigError } from "../components/config";
import {
    environmentConfig,
    formatGateText,
    GateInputError,
    GateReport,
    planToGateResources,
    PolicyPackProcess,
    runGate,
    toPlanViolation,
} from "./gate";
import { asRecord } from "../policies/lib/values";
import { readStackFiles, RecordedResource, runProgram, StackFileError, UNKNOWN } from "./offline";
import { runMain } from "./cli";

export interface PlanViolation {
    policy: string;
    level: "mandatory" | "advisory";
    resource: { type: string; name: string; kind?: string; namespace?: string };
    message: string;
}

export interface Plan {
    stack: string;
    resources: { type: string; name: string; props: Record<string, unknown>; options?: RecordedResource["options"] }[];
    violations: PlanViolation[];
}

const ROOT = path.resolve(__dirname, "..");

/** Renders a stack into a plan. Throws `ConfigError` / `StackFileError` on bad input. */
export async function renderPlan(stack: string, root: string = ROOT): Promise<Plan> {
    const run = await runProgram(root, stack, path.join(root, "index.ts"), "preview");
    return {
        stack,
        resources: run.resources.map((r) => ({
            type: r.type,
            name: r.name,
            props: r.props,
            ...(Object.keys(r.options).length > 0 ? { options: r.options } : {}),
        })),
        violations: [],
    };
}

function show(value: unknown): string {
    if (value === UNKNOWN) {
        return "(known after apply)";
    }
    if (typeof value === "string") {
        return value.includes(UNKNOWN) ? "(known after apply)" : value;
    }
    return JSON.stringify(value, (_k, v: unknown) => (v === UNKNOWN ? "(known after apply)" : v));
}

function tagsOf(props: Record<string, unknown>): Record<string, unknown> {
    return (props.tags ?? {}) as Record<string, unknown>;
}

/** The few settings of each resource type an operator checks in a plan. */
const KEY_SETTINGS: Record<string, string[]> = {
    "aws:ec2/vpc:Vpc": ["cidrBlock", "enableDnsHostnames", "enableDnsSupport"],
    "aws:ec2/subnet:Subnet": ["cidrBlock", "availabilityZone", "mapPublicIpOnLaunch", "tags"],
    "aws:ec2/securityGroup:SecurityGroup": ["description", "tags"],
    // The deployer's route to the API server shows as a 443 rule from its networks.
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": [
        "description",
        "cidrIpv4",
        "referencedSecurityGroupId",
        "fromPort",
        "toPort",
    ],
    "aws:ec2transitgateway/vpcAttachment:VpcAttachment": ["transitGatewayId"],
    "aws:ec2/routeTable:RouteTable": ["routes"],
    "eks:index:Cluster": [
        "name",
        "version",
        "authenticationMode",
        "endpointPrivateAccess",
        "endpointPublicAccess",
        "publicAccessCidrs",
        "enabledClusterLogTypes",
        "encryptionConfigKeyArn",
        "deletionProtection",
    ],
    "aws:kms/key:Key": ["enableKeyRotation", "deletionWindowInDays"],
    "aws:eks/addon:Addon": ["addonName", "addonVersion", "configurationValues"],
    "aws:cloudwatch/logGroup:LogGroup": ["name", "retentionInDays"],
    "aws:iam/role:Role": ["name"],
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment": ["role", "policyArn"],
    "aws:eks/accessEntry:AccessEntry": ["principalArn", "type"],
    "aws:eks/accessPolicyAssociation:AccessPolicyAssociation": ["principalArn", "policyArn", "accessScope"],
    "aws:eks/podIdentityAssociation:PodIdentityAssociation": ["namespace", "serviceAccount"],
    "aws:eks/nodeGroup:NodeGroup": [
        "amiType",
        "releaseVersion",
        "capacityType",
        "instanceTypes",
        "scalingConfig",
        "updateConfig",
        "labels",
        "taints",
    ],
    "aws:ec2/launchTemplate:LaunchTemplate": ["imageId", "metadataOptions", "blockDeviceMappings"],
    "aws:autoscaling/group:Group": ["minSize", "desiredCapacity", "maxSize", "instanceRefresh"],
    "aws:autoscaling/lifecycleHook:LifecycleHook": ["lifecycleTransition", "defaultResult", "heartbeatTimeout"],
    "aws:sqs/queue:Queue": ["name", "messageRetentionSeconds", "sqsManagedSseEnabled"],
    "aws:cloudwatch/eventRule:EventRule": ["eventPattern"],
    "kubernetes:helm.sh/v3:Release": ["chart", "version", "namespace"],
};

function keySettings(r: Plan["resources"][number]): string {
    const p = r.props;
    const keys = KEY_SETTINGS[r.type];
    if (keys) {
        const tags = Object.entries(tagsOf(p)).filter(([t]) => t !== "Name");
        return keys
            .filter((k) => p[k] !== undefined && !(k === "tags" && tags.length === 0))
            .map((k) => (k === "tags" ? `tags{${tags.map(([t, v]) => `${t}=${show(v)}`).join(", ")}}` : `${k}=${show(p[k])}`))
            .join(" ");
    }
    if (r.type.startsWith("kubernetes:")) {
        const meta = (p.metadata ?? {}) as Record<string, unknown>;
        const spec = p.spec === undefined ? "" : ` spec=${show(p.spec)}`;
        // A namespace's labels carry its Pod Security Admission levels.
        const labels = r.type === "kubernetes:core/v1:Namespace" ? Object.entries(asRecord(meta.labels) ?? {}) : [];
        const shownLabels = labels.length ? ` labels{${labels.map(([l, v]) => `${l}=${show(v)}`).join(", ")}}` : "";
        return `${meta.namespace ? `${show(meta.namespace)}/` : ""}${show(meta.name ?? "")}${shownLabels}${spec}`.slice(0, 400);
    }
    return "";
}

function optionNote(r: Plan["resources"][number]): string {
    const notes = [r.options?.protect ? "protected" : "", r.options?.retainOnDelete ? "retained on delete" : ""].filter(Boolean);
    return notes.length ? ` [${notes.join(", ")}]` : "";
}

/** Human-readable plan: one line per resource, nested under the component that owns it. */
export function formatText(plan: Plan): string {
    const lines = [`Plan for stack "${plan.stack}": ${plan.resources.length} resources to create`, ""];
    // The program's own components (`platform:<area>:<Type>`); everything else nests under them.
    const components = new Set(plan.resources.filter((r) => r.type.startsWith("platform:")).map((r) => r.name));
    const children = new Map<string | undefined, Plan["resources"]>();
    for (const r of plan.resources) {
        const parent = r.options?.parent && components.has(r.options.parent) ? r.options.parent : undefined;
        children.set(parent, [...(children.get(parent) ?? []), r]);
    }
    const visit = (parent: string | undefined, depth: number) => {
        for (const r of children.get(parent) ?? []) {
            const indent = "  ".repeat(depth + 1);
            const settings = keySettings(r);
            lines.push(`${indent}+ ${r.type}  ${r.name}${optionNote(r)}${settings ? `\n${indent}    ${settings}` : ""}`);
            if (r.type.startsWith("platform:") && r.name !== parent) {
                visit(r.name, depth + 1);
            }
        }
    };
    visit(undefined, 0);
    return lines.join("\n");
}

interface CliArgs {
    stack?: string;
    format: "text" | "json";
}

function parseArgs(argv: string[]): CliArgs {
    const args: CliArgs = { format: "text" };
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        if (a === "--format") {
            const f = argv[++i];
            if (f !== "text" && f !== "json") {
                throw new Error(`--format must be text or json, not "${f ?? ""}"`);
            }
            args.format = f;
        } else if (a.startsWith("--format=")) {
            argv.splice(i + 1, 0, a.slice("--format=".length));
            argv[i] = "--format";
            i--;
        } else if (a.startsWith("-")) {
            throw new Error(`unknown option ${a}`);
        } else if (args.stack === undefined) {
            args.stack = a;
        } else {
            throw new Error(`unexpected argument ${a}`);
        }
    }
    if (!args.stack) {
        throw new Error("usage: npm run plan -- <stack> [--format text|json]");
    }
    return args;
}

async function main(): Promise<number> {
    let args: CliArgs;
    try {
        args = parseArgs(process.argv.slice(2));
    } catch (err) {
        process.stderr.write(`${(err as Error).message}\n`);
        return 2;
    }
    let plan: Plan;
    let gate: { report: GateReport; text: string };
    // The pack boots in its own process while the program renders here: the two overlap.
    let pack: Promise<PolicyPackProcess> | undefined;
    try {
        // npm runs scripts from the package root: the stack files and index.ts of the working directory.
        const root = process.cwd();
        const project = readStackFiles(root, args.stack as string).project;
        const packDir = path.join(root, "policies");
        pack = PolicyPackProcess.start(packDir, { stack: args.stack as string, project });
        pack.catch(() => undefined);
        plan = await renderPlan(args.stack as string, root);
        gate = await gatePlan(plan, project, packDir, pack);
    } catch (err) {
        if (err instanceof ConfigError || err instanceof StackFileError || err instanceof GateInputError) {
            process.stderr.write(`${err.message}\n`);
            return 2;
        }
        throw err;
    } finally {
        void pack?.then(
            (p) => p.close(),
            () => undefined,
        );
    }
    const blocked = plan.violations.some((v) => v.level === "mandatory");
    if (args.format === "json") {
        // Stdout carries only the JSON; notes about the gate go to stderr, and so does the full
        // report when the gate fails, so whoever reads only stderr still learns why.
        process.stderr.write(blocked ? `${gate.text}\n` : gate.report.warnings.map((w) => `warning: ${w}\n`).join(""));
    }
    process.stdout.write(args.format === "json" ? `${JSON.stringify(plan)}\n` : `${formatText(plan)}\n\n${gate.text}\n`);
    return blocked ? 1 : 0;
}

/**
 * Runs the policy pack on a rendered plan with `<packDir>/config/<stack>.json` — the file
 * `pulumi preview --policy-pack-config` takes — and fills `plan.violations`.
 */
export async function gatePlan(
    plan: Plan,
    project: string,
    packDir: string,
    pack?: Promise<PolicyPackProcess>,
): Promise<{ report: GateReport; text: string }> {
    const resources = planToGateResources(plan, project);
    const config = environmentConfig(packDir, plan.stack);
    const report = await runGate({
        packDir,
        configFile: config.file,
        warnings: config.warnings,
        stack: plan.stack,
        project,
        resources,
        pack,
    });
    const byUrn = new Map(resources.map((r) => [r.urn, r]));
    plan.violations = report.diagnostics.map((d) => toPlanViolation(d, byUrn, plan.stack));
    const text = formatGateText(report, (urn) => {
        const r = urn ? byUrn.get(urn) : undefined;
        return r ? `${r.type}  ${r.name}` : `stack ${plan.stack}`;
    });
    const shown = report.configFile ? path.relative(process.cwd(), report.configFile) || report.configFile : "none";
    return { report, text: `Policies (${report.pack}, config ${shown}):\n${text}` };
}

if (require.main === module) {
    runMain(main);
}
