/**
 * The kubectl Update Demo's images (test/images/nautilus and kitten):
 * agnhost with ENTRYPOINT ["/agnhost"], CMD ["test-webserver"], adding a
 * picture and a data.json naming it to `/`. The test reads data.json
 * through pods/proxy. The pictures themselves are not modelled.
 */

/** The files each image adds, by its name below the e2e-test-images registry path. */
export const UPDATE_DEMO_FILES: Readonly<Record<string, ReadonlyMap<string, string>>> = {
  nautilus: new Map([['/data.json', '{\n  "image": "nautilus.jpg"\n}\n']]),
  kitten: new Map([['/data.json', '{\n  "image": "kitten.jpg"\n}\n']]),
};
