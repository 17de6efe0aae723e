/**
 * The offline plan as an operator reads it: each resource nested under the component that owns it,
 * with the few settings worth checking before `pulumi up`.
 */
import { asRecord, UNKNOWN } from "eks-platform-kernel";
import { withKindFacts } from "../../components/nodegroups/kinds";
import { messageParts } from "../gate/report";
import type { Plan } from "./stackPlan";

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

/**
 * The few settings of each resource type an operator checks in a plan; those of the types a
 * node-group kind owns come with the kind (`components/nodegroups/kinds.ts`).
 */
const KEY_SETTINGS: Readonly<Record<string, readonly string[]>> = {
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
    "aws:eks/addon:Addon": ["addonName", "addonVersion", "configurationValues", "podIdentityAssociations"],
    "aws:ec2/vpcEndpoint:VpcEndpoint": ["serviceName", "vpcEndpointType", "privateDnsEnabled"],
    "aws:cloudwatch/logGroup:LogGroup": ["name", "retentionInDays"],
    "aws:iam/role:Role": ["name"],
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment": ["role", "policyArn"],
    "aws:eks/accessEntry:AccessEntry": ["principalArn", "type"],
    "aws:eks/accessPolicyAssociation:AccessPolicyAssociation": ["principalArn", "policyArn", "accessScope"],
    "aws:eks/podIdentityAssociation:PodIdentityAssociation": ["namespace", "serviceAccount"],
    "aws:ec2/launchTemplate:LaunchTemplate": ["imageId", "metadataOptions", "blockDeviceMappings"],
    "aws:sqs/queue:Queue": ["name", "messageRetentionSeconds", "sqsManagedSseEnabled"],
    "aws:cloudwatch/eventRule:EventRule": ["eventPattern"],
    "kubernetes:helm.sh/v3:Release": ["chart", "version", "namespace"],
};

const SETTINGS = withKindFacts(KEY_SETTINGS, (t) => t.planFields, "tools/render/planText.ts");

/** The settings a text plan shows for a resource type; undefined when it shows none of its own. */
export function planKeyFields(type: string): readonly string[] | undefined {
    return SETTINGS[type];
}

/** Characters of a Kubernetes object's settings a text plan shows; `--format json` has them all. */
export const SETTINGS_SHOWN = 400;

function truncated(settings: string): string {
    const more = settings.length - SETTINGS_SHOWN;
    return more > 0 ? `${settings.slice(0, SETTINGS_SHOWN)}… (${more} more characters: see --format json)` : settings;
}

function keySettings(r: Plan["resources"][number]): string {
    const p = r.props;
    const keys = planKeyFields(r.type);
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
        return truncated(`${meta.namespace ? `${show(meta.namespace)}/` : ""}${show(meta.name ?? "")}${shownLabels}${spec}`);
    }
    return "";
}

function optionNote(r: Plan["resources"][number]): string {
    const notes = [r.options?.protect ? "protected" : "", r.options?.retainOnDelete ? "retained on delete" : ""].filter(Boolean);
    return notes.length ? ` [${notes.join(", ")}]` : "";
}

/** Human-readable plan: one line per resource, nested under the component that owns it. */
export function formatPlanText(plan: Plan): string {
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

/** Markdown text in a table cell or list item: no HTML, no cell breaks. Pure. */
function mdText(text: string): string {
    return text.replace(/[<>|]/g, (ch) => `\\${ch}`).replace(/\n/g, " ");
}

/**
 * The plan as Markdown for a job summary: the verdict and counts first, each blocking or advisory
 * finding on a line of its own, then the policy report and every resource folded. Pure.
 */
export function formatPlanMarkdown(plan: Plan, gate: { summary: string; text: string }): string {
    const mandatory = plan.violations.filter((v) => v.level === "mandatory" && v.waived === undefined);
    const verdict =
        mandatory.length > 0 ? `**${mandatory.length} mandatory violation${mandatory.length === 1 ? "" : "s"}**` : "no mandatory violation";
    const findings = plan.violations
        .filter((v) => v.waived === undefined)
        .map((v) => {
            const what = messageParts(v.message.split("\n").pop() ?? v.message).what;
            return `- ${v.level === "mandatory" ? "**mandatory**" : v.undecided !== undefined ? "undecided" : "advisory"} \`${v.policy}\` on ${mdText(v.resource.name)}: ${mdText(what)}`;
        });
    const fence = (text: string) => ["```text", text, "```"];
    return [
        `### Offline plan of \`${plan.stack}\`: ${verdict}`,
        "",
        `${plan.resources.length} resources to create; policies: ${mdText(gate.summary)}.`,
        ...(findings.length > 0 ? ["", ...findings] : []),
        "",
        "<details><summary>Policy report</summary>",
        "",
        ...fence(gate.text),
        "",
        "</details>",
        "",
        `<details><summary>Every resource (${plan.resources.length})</summary>`,
        "",
        ...fence(formatPlanText(plan)),
        "",
        "</details>",
        "",
    ].join("\n");
}
