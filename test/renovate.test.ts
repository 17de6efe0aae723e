/**
 * renovate.json: valid for the Renovate release package.json pins (its own validator, strict, as
 * a repository config), and its custom managers find every version pinned by hand in every stack
 * file, each with the package it is a version of and, for EKS add-ons, the stack's Kubernetes
 * minor, so an upgrade that forgets to move an annotation fails here.
 */
import { expect } from "chai";
import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
import { ADDON_CONFIG_KEYS } from "../tools/preflight/preflightChecks";
import { ROOT } from "./mocks";
import { stackConfig, stacks } from "./stackFiles";

interface CustomManager {
    managerFilePatterns: string[];
    matchStrings: string[];
    datasourceTemplate?: string;
    depNameTemplate?: string;
}
interface RenovateConfig {
    customManagers: CustomManager[];
    packageRules: { matchDatasources?: string[]; matchFileNames?: string[]; groupName?: string }[];
}

const CONFIG_FILE = path.join(ROOT, "renovate.json");
const CONFIG = JSON.parse(fs.readFileSync(CONFIG_FILE, "utf8")) as RenovateConfig;

// Renovate's own matching and templating (renovate 44: lib/util/package-rules/files.ts matches
// matchFileNames against the package file; lib/workers/repository/updates/branch-name.ts compiles
// groupName with the update's fields, packageFile among them).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const stringMatch = require("renovate/dist/util/string-match.js") as { matchRegexOrGlobList(input: string, patterns: string[]): boolean };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const template = require("renovate/dist/util/template/index.js") as {
    compile(template: string, input: Record<string, unknown>, filterFields?: boolean): string;
};

/** Whether a package rule's `matchFileNames` matches `file`, as Renovate decides it. */
function renovateMatchesFile(file: string, patterns: string[] | undefined): boolean {
    return patterns !== undefined && stringMatch.matchRegexOrGlobList(file, patterns);
}

/** A rule's `groupName` as Renovate compiles it for a dependency found in `packageFile`. */
function renovateGroupName(groupName: string, packageFile: string): string {
    // Its logger warns once that it is not initialised (the CLI initialises it): not ours to show.
    const warn = console.warn;
    console.warn = () => undefined;
    try {
        return template.compile(groupName, { packageFile, depName: "vpc-cni" }, true);
    } finally {
        console.warn = warn;
    }
}

/** Renovate's validator on `file`, as a repository config, failing on warnings too. */
function validate(file: string): Promise<{ code: number; output: string }> {
    return new Promise((resolve) => {
        execFile(
            process.execPath,
            [path.join(ROOT, "node_modules", "renovate", "dist", "config-validator.js"), "--strict", "--no-global", file],
            { cwd: ROOT, timeout: 180_000, env: { ...process.env, LOG_LEVEL: "info" } },
            (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
        );
    });
}

/** A `/…/` manager file pattern as a RegExp (Renovate's syntax for a regex pattern). */
const filePattern = (p: string) => new RegExp(p.slice(1, -1));

/** What a manager extracts from `text`: each match's named groups. */
function extract(manager: CustomManager, text: string): Record<string, string | undefined>[] {
    return manager.matchStrings.flatMap((s) => [...text.matchAll(new RegExp(s, "g"))].map((m) => ({ ...m.groups })));
}

describe("renovate.json", () => {
    it("is valid for Renovate's own validator (strict, as a repository config), which refuses a broken copy", async function () {
        this.timeout(400_000);
        const ok = await validate(CONFIG_FILE);
        expect(ok.code, ok.output).to.equal(0);
        expect(ok.output).to.include("Config validated successfully");
        const broken = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "renovate-")), "renovate.json");
        fs.writeFileSync(
            broken,
            JSON.stringify({ ...CONFIG, customManagers: [{ customType: "regex", managerFilePatterns: ["/x/"], matchStrings: ["x"] }] }),
        );
        const bad = await validate(broken);
        expect(bad.code).to.not.equal(0);
        expect(bad.output).to.include("Regex Managers must contain");
    });

    for (const stack of stacks()) {
        const file = `Pulumi.${stack}.yaml`;
        describe(`finds every version pinned by hand in ${file}`, () => {
            const text = fs.readFileSync(path.join(ROOT, file), "utf8");
            const managers = CONFIG.customManagers.filter((m) => m.managerFilePatterns.some((p) => filePattern(p).test(file)));
            const found: Record<string, string | undefined>[] = managers.flatMap((m) =>
                extract(m, text).map((g) => ({
                    ...g,
                    datasource: g.datasource ?? m.datasourceTemplate,
                    depName: g.depName ?? m.depNameTemplate,
                })),
            );
            const config = stackConfig(stack);

            it("each EKS add-on build, as its add-on, for the stack's Kubernetes minor", () => {
                const doc = YAML.parse(text) as { config: Record<string, Record<string, unknown>> };
                const cluster = doc.config["eks-platform:cluster"].addons as Record<string, string>;
                const addons = doc.config["eks-platform:addons"] as Record<string, { version?: string }>;
                const pinned: [string, string][] = [
                    ...Object.entries(cluster).map(([k, v]): [string, string] => [`cluster.addons.${k}`, v]),
                    ...Object.entries(addons)
                        .filter(([, v]) => typeof v?.version === "string")
                        .map(([k, v]): [string, string] => [`addons.${k}.version`, v.version as string]),
                ];
                expect(pinned.length).to.be.greaterThan(4);
                for (const [key, version] of pinned) {
                    const addon = Object.entries(ADDON_CONFIG_KEYS).find(([, k]) => k === key)?.[0];
                    expect(addon, `${key}: an add-on the program installs`).to.be.a("string");
                    const dep = found.find((d) => d.datasource === "aws-eks-addon" && d.depName === addon);
                    expect(dep, `${file} ${key}: a # renovate: comment above it`).to.not.equal(undefined);
                    expect(dep?.currentValue, key).to.equal(version);
                    expect(
                        JSON.parse(dep?.packageName ?? "{}"),
                        `${file} ${key}: its # renovate: marker must name the stack's minor: set "kubernetesVersion":"${config.cluster.version}" (npm run upgrade -- ${stack} names each marker to move, by line)`,
                    ).to.deep.equal({
                        addonName: addon,
                        kubernetesVersion: config.cluster.version,
                    });
                }
            });

            it("the charts (the LB controller's from its Helm repository, Karpenter's from its OCI registry) and the EC2NodeClass AMI aliases", () => {
                const lb = found.find((d) => d.depName === "aws-load-balancer-controller");
                if (config.addons.loadBalancerController === undefined) {
                    expect(lb, "EKS Auto Mode: no chart to pin").to.equal(undefined);
                } else {
                    expect(lb).to.deep.include({
                        datasource: "helm",
                        registryUrl: "https://aws.github.io/eks-charts",
                        currentValue: config.addons.loadBalancerController.chartVersion,
                    });
                }
                if (config.karpenter.enabled) {
                    expect(found.find((d) => d.depName === "public.ecr.aws/karpenter/karpenter")).to.deep.include({
                        datasource: "docker",
                        currentValue: config.karpenter.chartVersion,
                    });
                    for (const nodeClass of Object.values(config.karpenter.nodeClasses)) {
                        const date = /^al2023@v(\d{8})$/.exec(nodeClass.amiAlias ?? "")?.[1];
                        if (date !== undefined) {
                            expect(
                                found.find((d) => d.depName === "awslabs/amazon-eks-ami" && d.currentValue === date)?.datasource,
                            ).to.equal("github-releases");
                        }
                    }
                }
            });

            it("groups the stack's add-on builds into one update of its own, by a rule that matches every stack file", () => {
                const rules = CONFIG.packageRules.filter(
                    (r) => r.matchDatasources?.includes("aws-eks-addon") && renovateMatchesFile(file, r.matchFileNames),
                );
                expect(rules, `${file}: one aws-eks-addon rule of renovate.json matches it`).to.have.length(1);
                expect(renovateGroupName(rules[0].groupName ?? "", file)).to.equal(`EKS add-ons of ${file}`);
            });
        });
    }

    it("finds the Pulumi CLI version of every workflow step that installs it, the same as the SDK package.json pins", () => {
        const manager = CONFIG.customManagers.find((m) => m.depNameTemplate === "pulumi/pulumi") as CustomManager;
        const sdk = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> })
            .dependencies["@pulumi/pulumi"];
        let seen = 0;
        for (const f of fs.readdirSync(path.join(ROOT, ".github", "workflows"))) {
            const rel = `.github/workflows/${f}`;
            const text = fs.readFileSync(path.join(ROOT, rel), "utf8");
            const steps = (text.match(/pulumi-version:/g) ?? []).length;
            if (steps > 0) {
                expect(
                    manager.managerFilePatterns.some((p) => filePattern(p).test(rel)),
                    rel,
                ).to.equal(true);
                const versions = extract(manager, text).map((g) => g.currentValue);
                expect(versions, rel).to.have.length(steps);
                expect(new Set(versions), rel).to.deep.equal(new Set([sdk]));
                seen += steps;
            }
        }
        expect(seen).to.be.greaterThan(0);
    });
});
