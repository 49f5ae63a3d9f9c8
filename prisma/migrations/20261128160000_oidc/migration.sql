-- Single sign-on through OpenID Connect (docs/security.md, "Single sign-on"): an organisation's
-- claimed email domain, the role people from it join with, whether its members may act for it from a
-- password session; and a person's OpenID Connect identity.
ALTER TABLE "users" ADD COLUMN "sso_domain" TEXT;
ALTER TABLE "users" ADD COLUMN "sso_default_role" TEXT;
ALTER TABLE "users" ADD COLUMN "password_sign_in" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "users" ADD COLUMN "oidc_subject" TEXT;
CREATE UNIQUE INDEX "users_sso_domain_key" ON "users"("sso_domain");
CREATE UNIQUE INDEX "users_oidc_subject_key" ON "users"("oidc_subject");
