// Object names and generateName prefixes against the API server's own rules, case by case:
// apimachinery pkg/util/validation (IsDNS1123Subdomain, IsDNS1123Label, IsDNS1035Label),
// pkg/api/validate/content (IsPathSegmentName), pkg/api/validation (ValidateObjectMetaAccessor,
// maskTrailingDash), the name function each kind's validation picks (kubernetes pkg/apis/*/validation)
// and the apiserver's SimpleNameGenerator (pkg/storage/names).
import { expect } from "chai";
import { DNS_SUBDOMAIN, generateNameProblem, namespaceNameProblem, objectNameProblem } from "eks-platform-kernel";

const SUBDOMAIN =
    'a DNS-1123 subdomain (lower-case letters, digits, "-" and ".", starting and ending with a letter or digit, at most 253 characters)';
const LABEL = 'a DNS-1123 label (lower-case letters, digits and "-", starting and ending with a letter or digit, at most 63 characters)';
const LABEL_1035 =
    'a DNS-1035 label (lower-case letters, digits and "-", starting with a letter, ending with a letter or digit, at most 63 characters)';
const PATH_SEGMENT = 'a path segment (not "." or "..", without "/" or "%")';

describe("object names as the API server validates them (kernel/names.ts)", () => {
    it("most kinds take a DNS-1123 subdomain of at most 253 characters (NameIsDNSSubdomain, IsDNS1123Subdomain)", () => {
        for (const good of ["web", "0", "a-b.c-d", "web.shop.example", "1.2.3", "a".repeat(253), `${"a".repeat(63)}.${"b".repeat(100)}`]) {
            expect(objectNameProblem("Deployment", good), good).to.equal(undefined);
            expect(DNS_SUBDOMAIN.test(good), good).to.equal(true);
        }
        for (const bad of ["", "Web", "-web", "web-", "web.", ".web", "a..b", "a_b", "a.-b", "a".repeat(254)]) {
            expect(objectNameProblem("ConfigMap", bad), JSON.stringify(bad)).to.equal(
                `metadata.name ${JSON.stringify(bad)} is not ${SUBDOMAIN}`,
            );
        }
    });

    it("Namespace names and metadata.namespace are DNS-1123 labels (ValidateNamespaceName = NameIsDNSLabel)", () => {
        for (const good of ["shop", "x", "0a", "a-0", "a".repeat(63)]) {
            expect(objectNameProblem("Namespace", good), good).to.equal(undefined);
            expect(namespaceNameProblem(good), good).to.equal(undefined);
        }
        for (const bad of ["shop.prod", "Shop", "-shop", "shop-", "", "a".repeat(64)]) {
            expect(objectNameProblem("Namespace", bad), bad).to.equal(`metadata.name ${JSON.stringify(bad)} is not ${LABEL}`);
            expect(namespaceNameProblem(bad), bad).to.equal(`metadata.namespace ${JSON.stringify(bad)} is not ${LABEL}`);
        }
    });

    it("Service names are DNS-1035 labels: a letter first (ValidateServiceName = NameIsDNS1035Label)", () => {
        for (const good of ["web", "w", "web-1", "a".repeat(63)]) {
            expect(objectNameProblem("Service", good), good).to.equal(undefined);
        }
        for (const bad of ["1web", "web.shop", "web-", "Web", "", "a".repeat(64)]) {
            expect(objectNameProblem("Service", bad), bad).to.equal(`metadata.name ${JSON.stringify(bad)} is not ${LABEL_1035}`);
        }
    });

    it("RBAC names are path segments: anything but . and .., without / or % (ValidateRBACName, content.IsPathSegmentName)", () => {
        for (const kind of ["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"]) {
            for (const good of ["system:controller:web", "Web_Admin", "...", "a.b", "x".repeat(300)]) {
                expect(objectNameProblem(kind, good), `${kind} ${good}`).to.equal(undefined);
            }
            for (const bad of [".", "..", "a/b", "100%"]) {
                expect(objectNameProblem(kind, bad), `${kind} ${bad}`).to.equal(
                    `metadata.name ${JSON.stringify(bad)} is not ${PATH_SEGMENT}`,
                );
            }
        }
    });

    it("names the invisible, control and bidirectional characters a reader cannot see, each once", () => {
        expect(objectNameProblem("Secret", "a\u202eb\u202e\u200b\t c")).to.equal(
            `metadata.name "a\u202eb\u202e\u200b\\t c" is not ${SUBDOMAIN}: it contains U+202E, U+200B, U+0009, U+0020 (invisible, control or bidirectional characters)`,
        );
        expect(objectNameProblem("Secret", "a\u2028")).to.match(/: it contains U\+2028 \(invisible/);
        expect(objectNameProblem("Secret", "A")).to.equal(`metadata.name "A" is not ${SUBDOMAIN}`);
    });
});

describe("metadata.generateName as the API server validates it (kernel/names.ts generateNameProblem)", () => {
    it("accepts a valid prefix of the kind's names, a trailing '-' allowed (ValidateObjectMetaAccessor with prefix=true, maskTrailingDash)", () => {
        for (const [kind, prefix] of [
            ["Pod", "web-"],
            ["Job", "migrate-"],
            ["ConfigMap", "web.shop-"],
            ["Pod", "web"],
            ["Namespace", "team-"],
            ["Service", "web-"],
            ["Role", "reader-"],
        ]) {
            expect(generateNameProblem(kind, prefix, false), `${kind} ${prefix}`).to.equal(undefined);
            expect(generateNameProblem(kind, prefix, true), `${kind} ${prefix}`).to.equal(undefined);
        }
        // The masked form is at most the rule's length: a 64-character label prefix ending in "-" passes.
        expect(generateNameProblem("Namespace", `${"a".repeat(63)}-`, true)).to.equal(undefined);
        // A name of the SimpleNameGenerator takes 58 characters of the prefix, so a long prefix still makes valid names.
        expect(generateNameProblem("Namespace", `${"a".repeat(62)}`, false)).to.equal(undefined);
    });

    it("refuses a prefix the kind's name rule refuses, saying so", () => {
        expect(generateNameProblem("Pod", "Web-", false)).to.equal(`metadata.generateName "Web-" is not the start of ${SUBDOMAIN}`);
        expect(generateNameProblem("Pod", "-", false)).to.equal(`metadata.generateName "-" is not the start of ${SUBDOMAIN}`);
        expect(generateNameProblem("Pod", "web_", true)).to.equal(`metadata.generateName "web_" is not the start of ${SUBDOMAIN}`);
        expect(generateNameProblem("Pod", "web--", true)).to.equal(undefined);
        expect(generateNameProblem("Namespace", "team.a-", true)).to.equal(`metadata.generateName "team.a-" is not the start of ${LABEL}`);
        expect(generateNameProblem("Namespace", `${"a".repeat(64)}-`, true)).to.equal(
            `metadata.generateName "${"a".repeat(64)}-" is not the start of ${LABEL}`,
        );
        expect(generateNameProblem("Service", "1web-", true)).to.equal(`metadata.generateName "1web-" is not the start of ${LABEL_1035}`);
        expect(generateNameProblem("Pod", "web\u202e-", true)).to.equal(
            `metadata.generateName "web\u202e-" is not the start of ${SUBDOMAIN}: it contains U+202E (invisible, control or bidirectional characters)`,
        );
        // Go slices bytes: a character before the "-" that is not ASCII is cut in half, never accepted;
        // one that is ASCII goes, whatever it is (DEL, U+007F, included).
        expect(generateNameProblem("Pod", "é-", true)).to.equal(`metadata.generateName "é-" is not the start of ${SUBDOMAIN}`);
        expect(generateNameProblem("Pod", "a\u007f-", true)).to.equal(undefined);
    });

    it("RBAC checks a generateName as a whole path segment, unmasked (ValidateRBACName ignores prefix)", () => {
        expect(generateNameProblem("ClusterRole", "Reader_", false)).to.equal(undefined);
        for (const bad of [".", "..", "a/-", "a%"]) {
            expect(generateNameProblem("RoleBinding", bad, false), bad).to.equal(
                `metadata.generateName ${JSON.stringify(bad)} is not the start of ${PATH_SEGMENT}`,
            );
        }
    });

    it("refuses a prefix whose generated names the rule refuses: maskTrailingDash drops the character before the '-' (apiserver SimpleNameGenerator)", () => {
        // "A-" is checked as "a", "a.-" as "aa": both pass as prefixes, but "A-x7k2p" and "a.-x7k2p" are no subdomains.
        for (const prefix of ["A-", "a.-", "a..-"]) {
            expect(generateNameProblem("Pod", prefix, false), prefix).to.equal(
                `metadata.generateName ${JSON.stringify(prefix)} makes names that are not ${SUBDOMAIN}: the API server names the object with it (its first 58 characters) and 5 random letters and digits, e.g. ${JSON.stringify(`${prefix}x7k2p`)}`,
            );
            // With a name of its own the object is not named from the prefix: only the prefix is checked.
            expect(generateNameProblem("Pod", prefix, true), prefix).to.equal(undefined);
        }
        // The cut to 58 characters comes first: it can drop the trailing ".-", and it keeps long prefixes within the name's length.
        expect(generateNameProblem("Pod", `${"a".repeat(58)}.-`, false)).to.equal(undefined);
        expect(generateNameProblem("Pod", "a".repeat(250), false)).to.equal(undefined);
        // The example is a name the API server could make: the first 58 characters, then the random ones.
        expect(generateNameProblem("Pod", `${"a".repeat(57)}A-`, false)).to.match(new RegExp(`e\\.g\\. "a{57}Ax7k2p"$`));
    });
});
