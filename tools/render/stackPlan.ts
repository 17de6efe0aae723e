/**
 * A stack's offline plan: the program rendered under the mock engine (offline.ts), and the policy
 * pack run over it as `pulumi preview --policy-pack` would, with `policies/config/<stack>.json`.
 */
import * as path from "path";
import { PolicyPack } from "../gate/analyzer";
import { GateReport, runGate } from "../gate/gate";
import { UNKNOWN } from "eks-platform-kernel";
import { RecordedResource, runProgram } from "./offline";
import { environmentConfig } from "../gate/policyConfig";
import { formatGateText, Locate, toViolations, Violation } from "../gate/report";
import { GateResource, urnOf } from "../gate/requests";

export interface Plan {
    stack: string;
    resources: { type: string; name: string; props: Record<string, unknown>; options?: RecordedResource["options"] }[];
    violations: Violation[];
}

const ROOT = path.resolve(__dirname, "..", "..");

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

/**
 * The resources of an offline plan as the engine would send them. The plan records a parent or
 * dependency by logical name only; names are unique per type, so a name is resolved to the
 * component (a type without a `/` module, not a provider) registered before, else the first match.
 * Each name's first registration and first component are kept as the plan is read, so resolving
 * costs the same at 16 000 resources (2 000 namespaces) as at 100, not a scan of all before it.
 */
export function planToGateResources(plan: Plan, project: string): GateResource[] {
    const isComponent = (type: string) => !type.split(":")[1]?.includes("/") && !type.startsWith("pulumi:providers:");
    const qualified: string[] = [];
    const urns: string[] = [];
    // Of the resources read so far (all registered before the one being read): by logical name.
    const first = new Map<string, number>();
    const firstComponent = new Map<string, number>();
    const resolve = (name: string): number => firstComponent.get(name) ?? first.get(name) ?? -1;
    return plan.resources.map((r, i) => {
        const parent = r.options?.parent ? resolve(r.options.parent) : -1;
        qualified[i] = parent >= 0 ? `${qualified[parent]}$${r.type}` : r.type;
        urns[i] = urnOf(plan.stack, project, qualified[i], r.name);
        const dependencies = (r.options?.dependsOn ?? [])
            .map((d) => resolve(d))
            .filter((j) => j >= 0)
            .map((j) => urns[j]);
        if (!first.has(r.name)) {
            first.set(r.name, i);
        }
        if (isComponent(r.type) && !firstComponent.has(r.name)) {
            firstComponent.set(r.name, i);
        }
        return {
            urn: urns[i],
            type: r.type,
            name: r.name,
            props: r.props,
            ...(parent >= 0 ? { parent: urns[parent] } : {}),
            ...(r.options?.protect ? { protect: true } : {}),
            ...(dependencies.length > 0 ? { dependencies } : {}),
        };
    });
}

/** Names a plan resource: type and logical name; Kubernetes objects also carry kind and namespace. */
function locator(resources: readonly GateResource[], stack: string): Locate {
    const byUrn = new Map(resources.map((r) => [r.urn, r]));
    return (urn) => {
        const r = urn ? byUrn.get(urn) : undefined;
        if (!r) {
            return { resource: { type: "pulumi:pulumi:Stack", name: stack }, label: `stack ${stack}` };
        }
        const meta = (r.props.metadata ?? {}) as { namespace?: unknown };
        const kind = r.type.startsWith("kubernetes:") && typeof r.props.kind === "string" ? r.props.kind : undefined;
        const namespace = typeof meta.namespace === "string" && meta.namespace !== UNKNOWN ? meta.namespace : undefined;
        return {
            resource: { type: r.type, name: r.name, ...(kind ? { kind } : {}), ...(namespace ? { namespace } : {}) },
            label: `${r.type}  ${r.name}`,
        };
    };
}

/**
 * Runs the policy pack on a rendered plan with `<packDir>/config/<stack>.json` — the file
 * `pulumi preview --policy-pack-config` takes — and fills `plan.violations`.
 */
export async function gatePlan(
    plan: Plan,
    project: string,
    packDir: string,
    pack?: Promise<PolicyPack>,
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
    const locate = locator(resources, plan.stack);
    plan.violations = toViolations(report, locate);
    const text = formatGateText(report, locate);
    const shown = report.configFile ? path.relative(process.cwd(), report.configFile) || report.configFile : "none";
    return { report, text: `Policies (${report.pack}, config ${shown}):\n${text}` };
}
