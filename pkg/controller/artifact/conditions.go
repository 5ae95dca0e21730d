package artifact

import (
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/runtimeconfig"
)

// Component names of AIMArtifacts, aim-engine's, and the downloader's ServiceAccount (F15); each reports a
// <Name>Ready condition. Jobs and their pods have health's reasons.
const (
	ComponentRuntimeConfig    = runtimeconfig.ComponentName
	ComponentAccount          = "ServiceAccount"
	ComponentCheckSizeJob     = "CheckSizeJob"
	ComponentCheckSizeJobPods = "CheckSizeJobPods"
	ComponentCheckSizeOutput  = "CheckSizeOutput"
	ComponentVolume           = "CachePvc"
	ComponentDownloadJob      = "DownloadJob"
	ComponentDownloadJobPods  = "DownloadJobPods"
)

// ConditionDownloadComplete follows the download Job as aim-engine's does; True/Verified stays once a
// download succeeded, so that the artifact stays Ready after its Job expires.
const ConditionDownloadComplete = "DownloadComplete"

// Reasons of DownloadComplete. Earlier releases wrote True/DownloadComplete (reasonLegacyDownloadDone), which
// counts as Verified.
const (
	ReasonDownloading        = "Downloading"
	ReasonVerifying          = "Verifying"
	ReasonVerified           = "Verified"
	ReasonVerificationFailed = "VerificationFailed"
	reasonLegacyDownloadDone = "DownloadComplete"
)

// Reasons of ServiceAccountReady, and of the Jobs while they wait for it.
const (
	ReasonAccountReady      = "AccountReady"
	ReasonAccountCreating   = "Creating"
	ReasonWaitingForAccount = "WaitingForServiceAccount"
)

// Reasons of CheckSizeOutputReady and CachePvcReady (a bound volume is Ready).
const (
	// ReasonInvalidSizeOutput marks a check-size Job whose output is not a size.
	ReasonInvalidSizeOutput    = "InvalidSizeOutput"
	ReasonCheckSizePodNotFound = "CheckSizePodNotFound"
	ReasonPVCPending           = "PvcPending"
	ReasonPVCLost              = "PvcLost"
	// ReasonStorageSizeError marks a volume size that cannot be computed.
	ReasonStorageSizeError = "StorageSizeError"
)

// ReasonJobCreated is the reason of the Event recorded for each Job the controller creates.
const ReasonJobCreated = "JobCreated"
