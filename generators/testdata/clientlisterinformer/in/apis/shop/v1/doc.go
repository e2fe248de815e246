// Package v1 is the shop.example.com/v1 API. Its deep copies and
// registration are the project's own: ctrlgen generates only what
// generate-groups.sh client,lister,informer would.
//
// +k8s:deepcopy-gen=package
// +groupName=shop.example.com
package v1
