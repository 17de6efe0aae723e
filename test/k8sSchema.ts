/**
 * Validates Kubernetes objects against the official OpenAPI schemas shipped in
 * `kubernetes-models` (core and built-in groups) and `@kubernetes-models/karpenter` (Karpenter v1).
 * Both packages are ESM-only, so they are loaded with a real dynamic `import()`.
 */

/** Pulumi Kubernetes types that are not API objects and carry no schema of their own. */
export const NOT_API_OBJECTS = new Set(["kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Chart", "kubernetes:yaml/v2:ConfigGroup"]);

/** `kubernetes:apps/v1:Deployment` → `{ group: "apps", version: "v1", kind: "Deployment" }`. */
export function parseTypeToken(type: string): { group: string; version: string; kind: string } | undefined {
    const match = /^kubernetes:([^/]+)\/([^:]+):(.+)$/.exec(type);
    return match ? { group: match[1], version: match[2], kind: match[3] } : undefined;
}

function modulePath(group: string, version: string, kind: string): string {
    if (group === "karpenter.sh" || group === "karpenter.k8s.aws") {
        return `@kubernetes-models/karpenter/${group}/${version}/${kind}`;
    }
    return group === "core" ? `kubernetes-models/${version}/${kind}` : `kubernetes-models/${group}/${version}/${kind}`;
}

type Model = new (data: Record<string, unknown>) => { validate(): void };

const cache = new Map<string, Promise<Model>>();

async function loadModel(group: string, version: string, kind: string): Promise<Model> {
    const spec = modulePath(group, version, kind);
    let pending = cache.get(spec);
    if (!pending) {
        pending = (import(spec) as Promise<Record<string, Model>>).then((mod) => {
            const model = mod[kind];
            if (!model) {
                throw new Error(`${spec} exports no ${kind}`);
            }
            return model;
        });
        cache.set(spec, pending);
    }
    return pending;
}

/**
 * Validates one object given its Pulumi type token and inputs. Throws with the schema errors;
 * throws too when no schema exists for the type, so an unvalidated kind never passes silently.
 */
export async function validateKubernetesObject(type: string, props: Record<string, unknown>): Promise<void> {
    const parsed = parseTypeToken(type);
    if (!parsed) {
        throw new Error(`${type} is not a Kubernetes type token`);
    }
    const { group, version, kind } = parsed;
    const apiVersion = group === "core" ? version : `${group}/${version}`;
    const Model = await loadModel(group, version, kind);
    const object = new Model({ ...props, apiVersion, kind });
    object.validate();
}
