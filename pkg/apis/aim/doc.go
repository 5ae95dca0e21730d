// Package aim holds the internal (hub) version of the aim.eai.amd.com API. The server validates and stores
// objects in this form; every served version converts to and from it. Its shapes mirror v1alpha1 so that
// conversions are generated, and it carries no wire tags.
//
// +k8s:deepcopy-gen=package
// +groupName=aim.eai.amd.com
package aim
