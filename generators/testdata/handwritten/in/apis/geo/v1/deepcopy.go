package v1

// DeepCopyInto is written by hand: ctrlgen must not write another.
func (in *Polygon) DeepCopyInto(out *Polygon) {
	out.Points = append([]Point(nil), in.Points...)
}

// DeepCopy is written by hand: ctrlgen writes DeepCopyInto from it.
func (in Points) DeepCopy() Points {
	return append(Points(nil), in...)
}
