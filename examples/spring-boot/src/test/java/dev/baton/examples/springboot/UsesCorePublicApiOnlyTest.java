package dev.baton.examples.springboot;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The Spring Boot example, main and test classes, uses baton-core's public API only. */
class UsesCorePublicApiOnlyTest {

  @Test
  void noClassUsesCoreInternals() {
    JavaClasses example =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
            .importPackages("dev.baton.examples.springboot");
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.baton.internal..")
        .because("an example uses what its users have: Baton's public API")
        .check(example);
  }
}
