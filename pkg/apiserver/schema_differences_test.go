package apiserver

import (
	"regexp"
	"slices"
	"strings"
)

// schemaDifference lists differences from aim-engine's schema that are meant: where ("<kind> <path>") is a glob
// in which * stands for any characters; what lists keywords separated by spaces, or "path" for a path only one
// side has; ours and theirs, when set, are the values as the test prints them.
type schemaDifference struct {
	where, what  string
	ours, theirs string
	why          string
}

// matcher compiles the row into a test of one difference.
func (r schemaDifference) matcher() func(schemaDiff) bool {
	where := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(r.where), `\*`, ".*") + "$")
	return func(d schemaDiff) bool {
		return where.MatchString(d.kind+" "+d.path) && slices.Contains(strings.Fields(r.what), d.what) &&
			(r.ours == "" || r.ours == d.ours) && (r.theirs == "" || r.theirs == d.theirs)
	}
}

// Reasons shared by several rows of schemaDifferences.
const (
	whyZeroDefault = "openapi-gen publishes the Go zero value as the default of a field without omitempty, k8s.io/api's " +
		"types included; the server decodes into the Go types, where an absent field is that value anyway"
	whyQuantity = "an env entry is core/v1's EnvVar, whose divisor is resource.Quantity with its own schema " +
		"(k8s.io/apimachinery: string or number, no pattern), as for built-in kinds; the AIM kinds' own quantities " +
		"publish aim-engine's (D17). The server parses every quantity and answers 422 naming a field that does not " +
		"parse (docs/compatibility.md: Quantities in the published schema)"
	whyCondition = "metav1.Condition publishes k8s.io/apimachinery's schema, as for built-in kinds (its kubebuilder " +
		"markers do not reach openapi-gen); the server checks status writes with apimachinery's ValidateConditions, " +
		"the same rules"
	whyStatusValue = "status.status is published as a pattern of the kind's values: one Go type, AIMStatus, serves " +
		"every kind, and openapi-gen publishes an enum only from a type's constants (it drops " +
		"+k8s:validation:enum); the pattern also admits \"\", which the server takes as unset " +
		"(docs/compatibility.md: Published schema, Enum fields sent as \"\"). The values are the kind's: " +
		"AIMService adds NotAvailable (F1), and a model source is never Starting or Running"
	whyStatusCheck = "status is written by aim-apiserver's controller, and the server checks status writes as it " +
		"checks specs (F16): names are object names, counts are not negative, a reference has a name"
	whyObjectName = "a reference to an object must be a valid object name, which the server checks at admission " +
		"(docs/compatibility.md: Stricter checks)"
	whyImage = "an image reference has no whitespace, which the server checks at admission " +
		"(docs/compatibility.md: Stricter checks)"
	whyEnvName = "env names follow Kubernetes' env name rule, which the server checks at admission " +
		"(docs/compatibility.md: Stricter checks)"
	whyOneOf = "aim-engine checks it with a CEL rule (at least one of gpu and cpu; exactly one of name, image and " +
		"custom); the server enforces the rule at admission and the schema says the part a schema can say " +
		"(docs/compatibility.md: Published schema)"
	whyNonNegative = "the server rejects a negative count (docs/compatibility.md: Stricter checks)"
	whyInt32       = "the Go field is an int32 (protobuf); aim-engine's is an int, published without a format"
	whyNoSpec      = "the Go types' spec is not optional; an object without spec fails validation anyway, its spec's " +
		"required fields missing, where aim-engine stores it (docs/compatibility.md: Stricter checks)"
	whyF13 = "runtime configs take no defaults, so that set means override (F13; docs/compatibility.md: " +
		"Runtime-config fields never defaulted)"
	whyF14 = "runtime configs also place discovery and inference pods and bound discovery jobs (F14; " +
		"docs/compatibility.md: Runtime-config scheduling and discovery)"
	whyModelSource = "model source filters and registry are checked as repository and host names at admission " +
		"(docs/compatibility.md: Stricter checks)"
)

const quantityPattern = `"^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$"`

// schemaDifferences are the differences TestPublishedSchemaMatchesAimEngine accepts, each with its reason.
var schemaDifferences = []schemaDifference{
	// Generated schemas of Go and Kubernetes types.
	{where: "* *", what: "default", ours: `""`, theirs: "-", why: whyZeroDefault},
	{where: "* *", what: "default", ours: `{}`, theirs: "-", why: whyZeroDefault},
	{where: "AIM*ServiceTemplate status.resolvedNodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[].weight",
		what: "default", ours: "0", theirs: "-", why: whyZeroDefault},
	{where: "* *env[].valueFrom.resourceFieldRef.divisor", what: "type", ours: `"number|string"`, theirs: `"integer|string"`, why: whyQuantity},
	{where: "* *env[].valueFrom.resourceFieldRef.divisor", what: "pattern", ours: "-", theirs: quantityPattern, why: whyQuantity},
	{where: "* status.conditions[].*", what: "pattern minLength maxLength enum minimum", ours: "-", why: whyCondition},
	{where: "AIM*ServiceTemplate status.resolvedNodeAffinity.*.operator", what: "enum", theirs: "-",
		why: "k8s.io/api publishes NodeSelectorOperator as an enum (+enum), which controller-gen does not read; the " +
			"server checks the operators of status writes"},
	{where: "AIMClusterModelSource *", what: "format", ours: `"int32"`, theirs: "-", why: whyInt32},
	{where: "AIMService status.cache.retryAttempts", what: "format", ours: `"int32"`, theirs: "-", why: whyInt32},

	// Fields aim-apiserver adds.
	{where: "AIMService status.templateMatching", what: "path", why: "F3: every candidate of template selection is " +
		"recorded (docs/compatibility.md: Template selection)"},
	{where: "AIMService status.endpoint", what: "path", why: "F4: where the service answers (docs/compatibility.md: " +
		"status.endpoint)"},
	{where: "AIM*RuntimeConfig status.status", what: "path", why: "F7: runtime configs have a controller and a status " +
		"(docs/compatibility.md: Runtime configs)"},
	{where: "AIM*RuntimeConfig status.consumers", what: "path", why: "F7: runtime configs list the objects that use " +
		"them (docs/compatibility.md: Runtime configs)"},
	{where: "* spec.storage.accessModes", what: "path", why: "F15: PVC access modes are configurable " +
		"(docs/compatibility.md: PVC access modes)"},
	{where: "AIM*RuntimeConfig spec.scheduling", what: "path", why: whyF14},
	{where: "AIM*RuntimeConfig spec.discovery", what: "path", why: whyF14},

	// Defaults and required fields.
	{where: "AIM*RuntimeConfig spec.storage.pvcHeadroomPercent", what: "default", ours: "-", theirs: "10", why: whyF13},
	{where: "AIM*RuntimeConfig spec.labelPropagation.enabled", what: "default", ours: "-", theirs: "false", why: whyF13},
	{where: "AIMClusterModelSource status.status", what: "default", ours: `"Pending"`, theirs: "-",
		why: "every kind's status starts Pending, as aim-engine's other kinds publish it"},
	{where: "* .", what: "required", ours: `["spec"]`, theirs: "-", why: whyNoSpec},
	{where: "AIMTemplateCache spec", what: "required", ours: `["templateName"]`,
		why: "templateScope is required on create, and ratcheted for caches stored without it " +
			"(docs/compatibility.md: spec.templateScope of AIMTemplateCache)"},
	{where: "AIMService spec.autoScaling.metrics[]", what: "required", ours: `["podmetric","type"]`,
		why: "podmetric is required when type is PodMetric, the only type (docs/compatibility.md: Stricter checks)"},
	{where: "AIMArtifact spec.modelId", what: "pattern", ours: `"^([a-zA-Z0-9_-]+/[a-zA-Z0-9._-]+)?$"`,
		why: "the pattern admits \"\", which the server takes as unset (docs/compatibility.md: Enum fields sent as \"\")"},

	// Status values.
	{where: "* status.status", what: "pattern", why: whyStatusValue},
	{where: "* status.status", what: "enum", ours: "-", why: whyStatusValue},
	{where: "AIMTemplateCache status.artifacts{}.status", what: "pattern", theirs: "-", why: whyStatusValue},

	// What the server checks beyond aim-engine's schema and CEL rules (F16).
	{where: "* spec.model", what: "minProperties", ours: "1", theirs: "-", why: whyOneOf},
	{where: "* *hardware", what: "minProperties", ours: "1", theirs: "-", why: whyOneOf},
	{where: "AIM*ServiceTemplate status.resolvedHardware", what: "minProperties", ours: "1", theirs: "-", why: whyOneOf},
	{where: "* spec.model.name", what: "pattern maxLength", theirs: "-", why: whyObjectName},
	{where: "* spec.template.name", what: "pattern maxLength", theirs: "-", why: whyObjectName},
	{where: "* spec.runtimeConfigName", what: "pattern maxLength", theirs: "-", why: whyObjectName},
	{where: "* spec.serviceAccountName", what: "pattern maxLength", theirs: "-", why: whyObjectName},
	{where: "* spec.storageClassName", what: "pattern maxLength", theirs: "-", why: whyObjectName},
	{where: "* spec.defaultStorageClassName", what: "pattern maxLength", theirs: "-", why: whyObjectName},
	{where: "* spec.storage.defaultStorageClassName", what: "pattern maxLength", theirs: "-", why: whyObjectName},
	{where: "AIM*Model spec.defaultServiceTemplate", what: "pattern maxLength", theirs: "-", why: whyObjectName},
	{where: "AIM*ServiceTemplate spec.modelName", what: "pattern maxLength", theirs: "-", why: whyObjectName},
	{where: "AIMTemplateCache spec.templateName", what: "pattern maxLength", theirs: "-", why: whyObjectName},
	{where: "* spec.routing.gatewayRef.name", what: "pattern", theirs: "-", why: whyObjectName},
	{where: "* spec.imagePullSecrets[].name", what: "pattern maxLength", theirs: "-", why: whyObjectName},
	{where: "* spec.image", what: "pattern", theirs: "-", why: whyImage},
	{where: "AIMService spec.model.image", what: "pattern", theirs: "-", why: whyImage},
	{where: "AIMService spec.model.custom.baseImage", what: "pattern", theirs: "-", why: whyImage},
	{where: "AIMTemplateCache spec.downloadImage", what: "pattern", theirs: "-", why: whyImage},
	{where: "AIMArtifact spec.modelDownloadImage", what: "pattern", theirs: "-", why: whyImage},
	{where: "* *env[].name", what: "pattern", theirs: "-", why: whyEnvName},
	{where: "* spec.routing.pathTemplate", what: "pattern", theirs: "-",
		why: "a blank path template is refused at admission (docs/compatibility.md: Stricter checks)"},
	{where: "AIMService spec.replicas", what: "minimum", ours: "0", theirs: "-", why: whyNonNegative},
	{where: "AIM*RuntimeConfig spec.pvcHeadroomPercent", what: "minimum", ours: "0", theirs: "-",
		why: "the deprecated field is checked as storage.pvcHeadroomPercent, whose minimum aim-engine publishes"},
	{where: "AIMService spec.autoScaling.metrics[].podmetric.target.averageUtilization", what: "minimum", ours: "1",
		theirs: "-", why: "a utilization target is a positive percentage (docs/compatibility.md: Stricter checks)"},
	{where: "AIM*Model *.imageMetadata.model.recommendedDeployments[].gpuCount", what: "minimum", ours: "0", theirs: "-",
		why: whyNonNegative},
	{where: "AIM*Model *.imageMetadata.model.recommendedDeployments[].gpuModel", what: "maxLength", ours: "64",
		theirs: "-", why: "a GPU model is at most 64 characters, as in hardware.gpu.model " +
			"(docs/compatibility.md: Stricter checks)"},
	{where: "AIM*Model *.imageMetadata.model.recommendedDeployments[].metric", what: "pattern", theirs: "-",
		why: "metric and precision must be known values (docs/compatibility.md: Stricter checks)"},
	{where: "AIM*Model *.imageMetadata.model.recommendedDeployments[].precision", what: "pattern", theirs: "-",
		why: "metric and precision must be known values (docs/compatibility.md: Stricter checks)"},
	{where: "AIMClusterModelSource spec.registry", what: "pattern", theirs: "-", why: whyModelSource},
	{where: "AIMClusterModelSource spec.filters[].image", what: "pattern", theirs: "-", why: whyModelSource},
	{where: "AIMClusterModelSource spec.filters[].exclude[]", what: "minLength", ours: "1", theirs: "-",
		why: whyModelSource},
	{where: "AIM*RuntimeConfig spec.labelPropagation.match[]", what: "minLength", ours: "1", theirs: "-",
		why: "an empty label pattern matches nothing (docs/compatibility.md: Stricter checks)"},

	// Status fields the server checks (written by the controller only).
	{where: "* status.*", what: "required", ours: `["name"]`, theirs: "-", why: whyStatusCheck},
	{where: "* status.*.name", what: "pattern maxLength", theirs: "-", why: whyStatusCheck},
	{where: "* status.*", what: "minimum", ours: "0", theirs: "-", why: whyStatusCheck},
	{where: "AIMTemplateCache status.artifacts{}.*", what: "minLength", ours: "1", theirs: "-", why: whyStatusCheck},
}
