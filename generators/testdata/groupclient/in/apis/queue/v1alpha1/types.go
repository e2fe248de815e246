/*
This version has no kinds yet. kube_codegen.sh gives client-gen every
package with a +genclient line, and client-gen writes a group client for
each, so this line gets the version QueueV1alpha1() in the clientset, as
kueue's apis/kueue/v1alpha1/types.go does.
*/

package v1alpha1

//+genclient
