package state

// Condition types every kind has. A component's condition is its name followed by ComponentSuffix
// (Model -> ModelReady).
const (
	ConditionReady                 = "Ready"
	ConditionConfigValid           = "ConfigValid"
	ConditionAuthValid             = "AuthValid"
	ConditionDependenciesReachable = "DependenciesReachable"

	ComponentSuffix = "Ready"
)

// Reasons of the parent conditions and of Ready, as the reference words them.
const (
	ReasonConfigurationValid  = "ConfigurationValid"
	ReasonInvalidSpec         = "InvalidSpec"
	ReasonReferenceNotFound   = "ReferenceNotFound"
	ReasonAuthenticationValid = "AuthenticationValid"
	ReasonAuthError           = "AuthError"
	ReasonReachable           = "Reachable"
	ReasonInfrastructureError = "InfrastructureError"
	ReasonAllComponentsReady  = "AllComponentsReady"
	ReasonProgressing         = "Progressing"
)

// Messages of the parent conditions and of Ready when they are True, as the reference words them
// (internal/controller/utils/reconciler.go:65-86). When False they carry the error that made them so.
const (
	MessageConfigurationValid  = "Configuration is valid"
	MessageAuthenticationValid = "Authentication and authorization successful"
	MessageReachable           = "All dependencies are reachable"
	MessageAllComponentsReady  = "All components are ready"
)

// Reasons of components: a Ready component that names no reason of its own, and an error without a reason of
// its own (reasonOf), by its category. Auth, invalid spec, missing upstream and infrastructure errors take the
// reasons above.
const (
	ReasonReady             = "Ready"
	ReasonResourceNotReady  = "ResourceNotReady"
	ReasonResourceExhausted = "ResourceExhausted"
	// ReasonUnknown stands for a reason from outside that has nothing of the API's reason form
	// (sanitizeReason).
	ReasonUnknown = "Unknown"
)
