// Writes the Node, Python and Go SDKs of schema.json with Pulumi's own code generators (the
// pkg/v3/codegen packages of the CLI's version): what `pulumi package gen-sdk` runs inside each
// language host, called directly because the hosts that can be built here cannot (see
// scripts/gen-sdks.mjs). Built and run by scripts/gen-sdks.mjs, never by hand.
//
//	usage: gen-sdks <schema.json> <out dir> <language>...
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// The name each generated file's header gives as its generator.
const tool = "pulumi-sandbox's npm run gen"

func main() {
	if len(os.Args) < 4 {
		fail(fmt.Errorf("usage: gen-sdks <schema.json> <out dir> <language>..."))
	}
	raw, err := os.ReadFile(os.Args[1])
	fail(err)
	for _, lang := range os.Args[3:] {
		// Bound afresh per language: the generators record their language's info in the package.
		pkg := bind(raw)
		files, err := generate(lang, pkg)
		fail(err)
		fail(write(filepath.Join(os.Args[2], lang), files))
	}
}

func bind(raw []byte) *schema.Package {
	var spec schema.PackageSpec
	fail(json.Unmarshal(raw, &spec))
	pkg, diags, err := schema.BindSpec(spec, noPackages{}, schema.ValidationOptions{})
	fail(err)
	if diags.HasErrors() {
		fail(diags)
	}
	return pkg
}

func generate(lang string, pkg *schema.Package) (map[string][]byte, error) {
	switch lang {
	case "nodejs":
		return nodejs.GeneratePackage(tool, pkg, nil, nil, false, noPackages{})
	case "python":
		return python.GeneratePackage(tool, pkg, nil, noPackages{})
	case "go":
		return gogen.GeneratePackage(tool, pkg, nil)
	}
	return nil, fmt.Errorf("unknown language %q (nodejs, python or go)", lang)
}

func write(dir string, files map[string][]byte) error {
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func fail(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen-sdks:", err)
		os.Exit(1)
	}
}

// noPackages: schema.json refers to no other package, so any package load is a mistake to report.
type noPackages struct{}

func refused(name string) error {
	return fmt.Errorf("schema.json refers to package %q; it should refer to no other package", name)
}

func (noPackages) LoadPackage(pkg string, _ *semver.Version) (*schema.Package, error) {
	return nil, refused(pkg)
}

func (noPackages) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, refused(d.Name)
}

func (noPackages) LoadPackageReference(pkg string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, refused(pkg)
}

func (noPackages) LoadPackageReferenceV2(_ context.Context, d *schema.PackageDescriptor) (schema.PackageReference, error) {
	return nil, refused(d.Name)
}
