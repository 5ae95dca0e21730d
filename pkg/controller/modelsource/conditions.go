package modelsource

// Components and the informational condition of AIMClusterModelSources: FiltersReady and ExistingModelsReady, as
// aim-engine's, and MaxModelsLimitReached, which says whether maxModels kept selected images without a model.
const (
	ComponentFilters        = "Filters"
	ComponentExistingModels = "ExistingModels"

	ConditionMaxModelsLimitReached = "MaxModelsLimitReached"
)

// Reasons of FiltersReady (FiltersOutcome), ExistingModelsReady and MaxModelsLimitReached, aim-engine's.
const (
	ReasonNoFilters           = "NoFilters"
	ReasonAllFiltersSucceeded = "AllFiltersSucceeded"
	ReasonSomeFiltersFailed   = "SomeFiltersFailed"
	ReasonAllFiltersFailed    = "AllFiltersFailed"
	ReasonListed              = "Listed"
	ReasonLimitReached        = "LimitReached"
	ReasonWithinLimit         = "WithinLimit"
)

// Reasons of the errors of listing a filter: they set the parent conditions by their category and are quoted in
// FiltersReady's message. A registry's answer is sorted as an image's (imagemeta's reasons).
const (
	ReasonInvalidFilter       = "InvalidFilter"
	ReasonInvalidRegistry     = "InvalidRegistry"
	ReasonCatalogNotSupported = "CatalogNotSupported"
)
