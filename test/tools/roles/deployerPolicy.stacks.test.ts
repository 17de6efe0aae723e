/**
 * `npm run deployer-policy` over every stack of the repository: the invariants the issue asks for
 * (no IAM writes on `*`, role passing scoped, no key administration in IAM, the stack's own state,
 * IAM's size limits), and docs/roles.md's copy of them. Each stack's plan renders in a process of its
 * own, so the mutation module (dev/mutate.ts) leaves this file to CI and judges the rules by
 * deployerPolicy.test.ts.
 */
import { expect } from "chai";
import {
    actionCovers,
    MANAGED_POLICY_LIMIT,
    PLATFORM_CLUSTER_TAG,
    POLICY_WRITING_ACTIONS,
    policySize,
    ROLE_INLINE_POLICY_LIMIT,
} from "eks-platform-kernel";
import { KEY_ADMINISTRATION_ACTIONS, type PolicyDocument } from "../../../components/iam";
import {
    boundaryArn,
    type DeployerContext,
    deployerContext,
    deployerPolicy,
    driftPolicy,
    embeddedStacks,
    isReadAction,
    permissionsBoundary,
    type PlannedResource,
    type PolicyKind,
    scopeProblems,
    stackPolicy,
    stateReads,
} from "../../../tools/roles/deployRole";
import { authorizationProblems } from "../../../tools/roles/authorizationData";
import { rolesGuideText } from "../../../tools/docs/docs";
import { PREFLIGHT_ACTIONS } from "../../../tools/preflight/preflightChecks";
import { planOf, ROOT } from "../../mocks";
import { stackConfig, stacks } from "../../stackFiles";
import { actionsOf, allows, bySid, IAM_WRITES, resourcesOf } from "./deployRole.fixtures";

describe("npm run deployer-policy: every stack of the repository", () => {
    for (const stack of stacks()) {
        describe(`stack ${stack}`, () => {
            let ctx: DeployerContext;
            let plan: PlannedResource[];
            let doc: PolicyDocument;
            before(async () => {
                ctx = deployerContext(ROOT, stack, "org-pulumi-state");
                // The plan as `npm run plan` renders it (its own process: the program runs once per process).
                plan = (await planOf(stack)).resources;
                doc = deployerPolicy(plan, ctx);
            });

            it("takes the account, partition and region from the stack file, and the cluster's name", () => {
                const config = stackConfig(stack);
                expect(ctx.account).to.equal(config.access.deployer.split(":")[4]);
                expect(ctx.region).to.equal(config.region);
                expect(ctx.clusterName).to.equal(config.clusterName);
            });

            it("gives the drift check's role reads only, each read of the deploy policy, within IAM's limit on a role's inline policies", () => {
                const drift = driftPolicy(plan, ctx);
                expect(policySize(drift)).to.be.at.most(ROLE_INLINE_POLICY_LIMIT);
                for (const st of drift.Statement.filter((x) => x.Sid !== "StackSecrets")) {
                    expect(actionsOf(st).every(isReadAction), st.Sid).to.equal(true);
                }
                // The preflight runs in the drift job too: its reads are there.
                for (const action of PREFLIGHT_ACTIONS) {
                    expect(allows(drift, action).length, action).to.be.greaterThan(0);
                }
                for (const st of doc.Statement.filter(
                    (x) => !["StateBucket", "StateList", "StateMeta", "State", "StackSecrets"].includes(x.Sid ?? ""),
                )) {
                    for (const read of actionsOf(st).filter(isReadAction)) {
                        expect(
                            drift.Statement.some((d) => d.Sid === st.Sid && actionsOf(d).some((a) => actionCovers(a, read))),
                            `${st.Sid}: ${read}`,
                        ).to.equal(true);
                    }
                }
            });

            for (const kind of ["deploy", "boundary", "drift", "preview"] as PolicyKind[]) {
                it(`writes a ${kind} policy AWS's authorization data accepts: actions that exist, keys they support, resources of their types`, async () => {
                    expect(await authorizationProblems(stackPolicy(kind, plan, ctx))).to.deep.equal([]);
                });
            }

            it("lets the deploy, preview and drift roles read the stack's tags and checkpoint, and list them (a missing object must answer 404, not 403)", () => {
                for (const kind of ["deploy", "drift", "preview"] as PolicyKind[]) {
                    const policy = stackPolicy(kind, plan, ctx);
                    for (const object of [...stateReads(ctx.project, stack), ".pulumi/meta.yaml"]) {
                        const readers = allows(policy, "s3:GetObject").filter((s) =>
                            resourcesOf(s).includes(`arn:aws:s3:::org-pulumi-state/${object}`),
                        );
                        expect(readers, `${kind}: s3:GetObject ${object}`).to.have.length(1);
                        const list = bySid(policy, "StateList").Condition?.StringLike?.["s3:prefix"];
                        expect(list, `${kind}: s3:ListBucket ${object}`).to.include(object);
                    }
                }
                expect(stateReads(ctx.project, stack)).to.include(`.pulumi/stacks/${ctx.project}/${stack}.pulumi-tags`);
            });

            it("scopes every resource of the plan: no problem to report", () => {
                expect(scopeProblems(plan, ctx)).to.deep.equal([]);
            });

            it("grants no IAM write on `*`: each names the stack's roles, profiles, OIDC issuers or service-linked roles", () => {
                for (const s of doc.Statement) {
                    const writes = actionsOf(s).filter(
                        (a) =>
                            IAM_WRITES.test(a) || POLICY_WRITING_ACTIONS.some((w) => actionCovers(a, w)) || actionCovers(a, "iam:PassRole"),
                    );
                    if (writes.length > 0) {
                        expect(resourcesOf(s), `${s.Sid}: ${writes.join(", ")}`).to.not.include("*");
                    }
                }
            });

            it("passes only the stack's roles, only to the services the plan passes them to", () => {
                const pass = allows(doc, "iam:PassRole");
                expect(pass.map((s) => s.Sid)).to.deep.equal(["PassStackRoles"]);
                expect(pass[0].Resource).to.equal(`arn:aws:iam::${ctx.account}:role/${ctx.clusterName}-*`);
                const condition = Object.values(pass[0].Condition ?? {})[0] as Record<string, string[]>;
                // EKS always (the cluster role); Pod Identity where the plan associates a role with a pod.
                const podIdentity = plan.some((r) => r.type === "aws:eks/podIdentityAssociation:PodIdentityAssociation");
                expect(condition["iam:PassedToService"]).to.include("eks.amazonaws.com");
                expect(condition["iam:PassedToService"].includes("pods.eks.amazonaws.com"), "pods.eks.amazonaws.com").to.equal(podIdentity);
                expect(condition["iam:PassedToService"]).to.not.include("lambda.amazonaws.com");
            });

            it("creates, changes and gives policies to roles only with the stack's boundary, and attaches only the plan's managed policies", () => {
                for (const action of ["iam:CreateRole", "iam:PutRolePolicy", "iam:AttachRolePolicy", "iam:PutRolePermissionsBoundary"]) {
                    for (const s of allows(doc, action)) {
                        expect(s.Condition?.StringEquals?.["iam:PermissionsBoundary"], `${action} in ${s.Sid}`).to.equal(boundaryArn(ctx));
                    }
                }
                const attached = plan
                    .filter((r) => r.type === "aws:iam/rolePolicyAttachment:RolePolicyAttachment")
                    .map((r) => r.props.policyArn);
                expect(bySid(doc, "AttachPlannedPolicies").Condition?.ArnEquals?.["iam:PolicyARN"]).to.have.members([...new Set(attached)]);
                expect(allows(doc, "iam:DeleteRolePermissionsBoundary")).to.deep.equal([]);
            });

            it("administers no KMS key through IAM: keys are created with the stack's tag, and each key's policy names the deploy role", () => {
                for (const action of KEY_ADMINISTRATION_ACTIONS.filter(
                    (a) => !["kms:TagResource", "kms:CreateAlias", "kms:DeleteAlias", "kms:UpdateAlias"].includes(a),
                )) {
                    const found = allows(doc, action).filter((s) => s.Sid !== "CustomerKeyGrants");
                    expect(
                        found.map((s) => s.Sid),
                        action,
                    ).to.deep.equal([]);
                }
                const create = bySid(doc, "CreateTaggedKeys");
                expect(create.Condition?.StringEquals).to.deep.equal({ [`aws:RequestTag/${PLATFORM_CLUSTER_TAG}`]: ctx.clusterName });
                // The provider sends the stack's default tags with every create: their keys must be allowed.
                const sent = new Set([PLATFORM_CLUSTER_TAG, ...(ctx.defaultTagKeys ?? [])]);
                expect(create.Condition?.["ForAllValues:StringEquals"]?.["aws:TagKeys"]).to.have.members([...sent]);
                const keys = plan.filter((r) => r.type === "aws:kms/key:Key");
                expect(keys.length).to.be.greaterThan(0);
                for (const key of keys) {
                    const policy = JSON.parse(String(key.props.policy)) as PolicyDocument;
                    const deployRole = policy.Statement.find((s) => s.Sid === "DeployRole");
                    expect(deployRole?.Principal, key.name).to.deep.equal({ AWS: stackConfig(stack).access.deployer });
                    expect(deployRole?.Action).to.have.members([...KEY_ADMINISTRATION_ACTIONS]);
                }
            });

            it("reads and writes this stack's state and secrets only", () => {
                const other = stacks().find((s) => s !== stack) ?? "another";
                const text = JSON.stringify(bySid(doc, "State"));
                expect(text).to.include(`/.pulumi/stacks/${ctx.project}/${stack}.json*`);
                expect(text).to.not.include(`/${other}.json`);
                expect(bySid(doc, "StackSecrets").Condition).to.deep.equal({
                    "ForAnyValue:StringEquals": { "kms:ResourceAliases": `alias/${ctx.project}-${stack}-secrets` },
                });
            });

            it("lets the deploy role run the preflight before `up`: each of its reads", () => {
                for (const action of PREFLIGHT_ACTIONS) {
                    expect(allows(doc, action).length, action).to.be.greaterThan(0);
                }
            });

            it("fits IAM's limits: the policy inline on the role, the boundary as a managed policy", () => {
                expect(policySize(doc)).to.be.at.most(ROLE_INLINE_POLICY_LIMIT);
                expect(policySize(permissionsBoundary(ctx))).to.be.at.most(MANAGED_POLICY_LIMIT);
            });

            it("gives every role of the plan the boundary the policy requires, and a name under the stack's prefix", () => {
                const roles = plan.filter((r) => r.type === "aws:iam/role:Role");
                expect(roles.length).to.be.greaterThan(0);
                for (const r of roles) {
                    expect(r.props.permissionsBoundary, r.name).to.equal(boundaryArn(ctx));
                    expect(String(r.props.name), r.name).to.match(new RegExp(`^${ctx.clusterName}-`));
                }
            });
        });
    }
});

describe("docs/roles.md: the policies it embeds", () => {
    it("embeds the deploy role's policy and the boundary of a stack of the repository, as `npm run docs` writes them (run it after changing what a stack creates)", async () => {
        const { current, generated } = await rolesGuideText(ROOT);
        const shown = embeddedStacks(current);
        expect(shown).to.have.length.greaterThan(0);
        for (const stack of shown) {
            expect(stacks()).to.include(stack);
        }
        expect(current.match(/<!-- deployer-policy: [^ ]+ -->/g)).to.have.length(1);
        expect(current.match(/<!-- deployer-policy: [^ ]+ --boundary -->/g)).to.have.length(1);
        expect(current.match(/<!-- deployer-policy: [^ ]+ --drift -->/g)).to.have.length(1);
        expect(current.match(/<!-- deployer-policy: [^ ]+ --preview -->/g)).to.have.length(1);
        expect(current === generated, "docs/roles.md differs from the generator: run `npm run docs`").to.equal(true);
    });
});
