package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +genclient

// Blob is a namespaced kind whose spec and status hold fixed-size arrays.
type Blob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   BlobSpec   `json:"spec,omitempty"`
	Status BlobStatus `json:"status,omitempty"`
}

// BlobSpec is what the blob should hold.
type BlobSpec struct {
	// Checksum is a fixed-size array of bytes, written as a JSON array of
	// numbers.
	Checksum [4]byte `json:"checksum"`
	// Size is in bytes.
	Size int64 `json:"size,omitempty"`
}

// BlobStatus is what was seen.
type BlobStatus struct {
	// Seen is a fixed-size array of strings.
	Seen [2]string `json:"seen"`
}

// BlobList is a list of Blobs.
type BlobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Blob `json:"items"`
}
