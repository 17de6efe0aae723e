/** Stack config values as the config tests edit them: a stack file's, or dev's with a team namespace of our own. */
import { expect } from "chai";
import { ConfigError, parseStackConfig, PROJECT, StackConfig } from "../../../components/config";
import { readStackFiles } from "../../../tools/render/offline";
import { ROOT } from "../../mocks";

/** A stack's config values (keys without the project prefix), decoded. */
export function valuesOf(stack: string): Record<string, any> {
    const values: Record<string, any> = {};
    for (const [key, raw] of Object.entries(readStackFiles(ROOT, stack).config)) {
        if (key.startsWith(`${PROJECT}:`)) {
            values[key.slice(PROJECT.length + 1)] = /^[[{]/.test(raw) ? JSON.parse(raw) : raw;
        }
    }
    return values;
}

/** A fixture stack: dev's values with one team namespace of our own, edited by `edit`. */
export function fixture(edit: (v: Record<string, any>) => void = () => undefined): Record<string, any> {
    const v = valuesOf("dev");
    v.namespaces = {
        analytics: {
            quota: { requestsCpu: "2", requestsMemory: "4Gi", limitsCpu: "4", limitsMemory: "8Gi", pods: 10 },
            containerDefaults: { request: { cpu: "100m", memory: "128Mi" }, limit: { cpu: "500m", memory: "512Mi" } },
        },
    };
    edit(v);
    return v;
}

export function parse(values: Record<string, any>): StackConfig {
    return parseStackConfig(values, { stack: "fixture", region: "us-east-1" });
}

export function problems(values: Record<string, any>): string[] {
    try {
        parse(values);
    } catch (err) {
        expect(err).to.be.instanceOf(ConfigError);
        return (err as ConfigError).problems;
    }
    return [];
}
